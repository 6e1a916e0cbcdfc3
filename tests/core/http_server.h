// A real HTTP server for the tests of maps named by URL: Debian's nginx, started by the test on
// 127.0.0.1 at a free port and stopped with it, serving a folder with byte ranges as object
// storage does, plus the answers a bad server gives.
#pragma once

#include <sys/types.h>

#include <string>

#include "test_files.h"

namespace qt::test {

class HttpServer {
public:
    // Serves `root` (an absolute folder) at url(""): / as it is, /slow/ the same files at
    // `slowBytesPerSecond` (nginx's limit_rate), /loop/ a redirect to itself, /gone/ 404.
    // ok() says whether nginx started; why() why not.
    explicit HttpServer(const std::string& root, int slowBytesPerSecond = 65536);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    bool ok() const { return pid_ > 0; }
    const std::string& why() const { return why_; }
    int port() const { return port_; }
    // "http://127.0.0.1:PORT/" + path
    std::string url(const std::string& path) const;
    // Stops the server: afterwards its port refuses connections.
    void stop();
    // Starts a stopped server again at the same port (a server back after an outage); false when
    // it cannot (the port taken meanwhile): why() says why.
    bool restart();
    // The requests answered so far, one line each ("GET /m.tif 206 bytes=0-16383"), every
    // answer a client has received included (it asks the server a request of its own first).
    std::string accessLog() const;

private:
    bool start(const std::string& root, int slowBytesPerSecond, int port);

    TempDir prefix_;
    std::string root_;
    int slowBytesPerSecond_ = 0;
    pid_t pid_ = -1;
    int port_ = 0;
    mutable int settles_ = 0;
    std::string why_;
};

// A socket connected to 127.0.0.1:port, or -1.
int connectToLocalPort(int port);

// Starts a server for a test; when nginx cannot start, the test fails under CI=true (Debian's
// nginx is one of the packages the test command installs) and is skipped elsewhere.
#define QT_REQUIRE_HTTP_SERVER(server)                                                            \
    do {                                                                                          \
        if (!(server).ok()) {                                                                     \
            if (const char* ci = std::getenv("CI"); ci != nullptr && std::string(ci) == "true") { \
                FAIL() << "no HTTP server: " << (server).why();                                   \
            }                                                                                     \
            GTEST_SKIP() << "no HTTP server: " << (server).why();                                 \
        }                                                                                         \
    } while (false)

}  // namespace qt::test
