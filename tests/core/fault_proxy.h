// A relay in front of the tests' HTTP server that answers as a faulty network or server does:
// bytes changed in transit, a Content-Length that does not match the body. nginx serves what its
// files hold and counts its own bytes, so it cannot make these faults itself.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace qt::test {

class FaultProxy {
public:
    enum class Fault {
        None,
        FlipBytes,      // every 61st byte of the body inverted
        CutBody,        // the body's first half sent under its whole Content-Length, then closed
        LongerLength,   // the whole body under a Content-Length 4096 bytes longer, then closed
        ShorterLength,  // the whole body under a Content-Length of 16 bytes, then closed
    };

    // Listens on 127.0.0.1 at a free port and relays every request to 127.0.0.1:serverPort, each
    // on a connection of its own, one request a client connection (it answers Connection: close).
    // ok() says whether it listens.
    explicit FaultProxy(int serverPort);
    ~FaultProxy();
    FaultProxy(const FaultProxy&) = delete;
    FaultProxy& operator=(const FaultProxy&) = delete;

    bool ok() const { return listener_ >= 0; }
    // "http://127.0.0.1:PORT/" + path
    std::string url(const std::string& path) const;
    // From now, every answer to a GET with a Range whose path ends in `pathEnd` comes back with
    // `fault` (Fault::None: as the server gave it).
    void arm(Fault fault, const std::string& pathEnd);
    // Answers given with a fault so far.
    int faultsGiven() const { return given_.load(); }
    // From now, every request is held `ms` milliseconds before it goes on (a server far away).
    void hold(int ms) { holdMs_ = ms; }
    // The most requests in flight at once since the last call (a request is in flight from its
    // head's arrival to its answer's end).
    int takePeakInFlight() { return peak_.exchange(inFlight_.load()); }

private:
    void acceptLoop();
    void relay(int client);

    int serverPort_ = 0;
    int listener_ = -1;
    int port_ = 0;
    std::thread acceptor_;
    std::mutex mutex_;
    std::vector<std::thread> relays_;
    std::vector<int> clients_;
    Fault fault_ = Fault::None;
    std::string pathEnd_;
    std::atomic<int> given_{0};
    std::atomic<int> holdMs_{0};
    std::atomic<int> inFlight_{0};
    std::atomic<int> peak_{0};
    std::atomic<bool> stopping_{false};
};

}  // namespace qt::test
