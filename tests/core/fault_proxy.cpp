// One thread accepts; each client connection gets a thread that reads its request's head, asks
// the server for it on a connection of its own (Connection: close, so the answer ends where the
// server closes), changes the answer when the fault applies, sends it and closes. GDAL's requests
// carry no body, so the head is the request.
#include "fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "http_server.h"

namespace qt::test {
namespace {

constexpr size_t kMostHead = 64 * 1024;

// Every receive gives up after this long, so that no relay outlives a test by much.
void setTimeout(int s) {
    timeval wait{};
    wait.tv_sec = 30;
    ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
}

bool sendAll(int s, const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(s, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) {
            return false;
        }
        sent += size_t(n);
    }
    return true;
}

// Bytes from `s` until the end of a head ("\r\n\r\n"), or "" when the peer closes first.
std::string readHead(int s) {
    std::string head;
    char c = 0;
    while (head.size() < kMostHead && ::recv(s, &c, 1, 0) == 1) {
        head += c;
        if (head.size() >= 4 && head.compare(head.size() - 4, 4, "\r\n\r\n") == 0) {
            return head;
        }
    }
    return {};
}

std::string readToEnd(int s) {
    std::string bytes;
    char buffer[65536];
    for (ssize_t n; (n = ::recv(s, buffer, sizeof(buffer), 0)) > 0;) {
        bytes.append(buffer, size_t(n));
    }
    return bytes;
}

int connectTo(int port) {
    const int s = connectToLocalPort(port);
    if (s >= 0) {
        setTimeout(s);
    }
    return s;
}

// The head's lines, the first (request or status line) included, without their "\r\n".
std::vector<std::string> headLines(const std::string& head) {
    std::vector<std::string> lines;
    for (size_t at = 0; at < head.size();) {
        const size_t end = head.find("\r\n", at);
        if (end == std::string::npos || end == at) {
            break;
        }
        lines.push_back(head.substr(at, end - at));
        at = end + 2;
    }
    return lines;
}

bool isHeader(const std::string& line, const char* name) {
    const size_t n = std::char_traits<char>::length(name);
    return line.size() > n && line[n] == ':' && ::strncasecmp(line.c_str(), name, n) == 0;
}

}  // namespace

FaultProxy::FaultProxy(int serverPort) : serverPort_(serverPort) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        return;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(s, 64) != 0 ||
        ::getsockname(s, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        ::close(s);
        return;
    }
    listener_ = s;
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { acceptLoop(); });
}

FaultProxy::~FaultProxy() {
    if (listener_ < 0) {
        return;
    }
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    acceptor_.join();
    ::close(listener_);
    std::vector<std::thread> relays;
    {
        const std::lock_guard<std::mutex> hold(mutex_);
        for (const int client : clients_) {
            ::shutdown(client, SHUT_RDWR);
        }
        relays.swap(relays_);
    }
    for (std::thread& relay : relays) {
        relay.join();
    }
}

std::string FaultProxy::url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

void FaultProxy::arm(Fault fault, const std::string& pathEnd) {
    const std::lock_guard<std::mutex> hold(mutex_);
    fault_ = fault;
    pathEnd_ = pathEnd;
}

void FaultProxy::acceptLoop() {
    while (!stopping_) {
        const int client = ::accept(listener_, nullptr, nullptr);
        if (client < 0) {
            if (stopping_) {
                return;
            }
            continue;
        }
        setTimeout(client);
        const std::lock_guard<std::mutex> hold(mutex_);
        clients_.push_back(client);
        relays_.emplace_back([this, client] { relay(client); });
    }
}

void FaultProxy::relay(int client) {
    const std::string request = readHead(client);
    const std::vector<std::string> lines = headLines(request);
    std::string answer;
    if (!lines.empty()) {
        const int now = ++inFlight_;
        for (int peak = peak_.load(); now > peak && !peak_.compare_exchange_weak(peak, now);) {
        }
        if (const int ms = holdMs_.load(); ms > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        }
        std::istringstream first(lines[0]);
        std::string method, target;
        first >> method >> target;
        const std::string path = target.substr(0, target.find('?'));
        bool ranged = false;
        std::string upstream = lines[0] + "\r\n";
        for (size_t i = 1; i < lines.size(); ++i) {
            ranged = ranged || isHeader(lines[i], "Range");
            if (!isHeader(lines[i], "Connection") && !isHeader(lines[i], "Keep-Alive")) {
                upstream += lines[i] + "\r\n";
            }
        }
        upstream += "Connection: close\r\n\r\n";
        if (const int server = connectTo(serverPort_); server >= 0) {
            if (sendAll(server, upstream)) {
                answer = readToEnd(server);
            }
            ::close(server);
        }
        Fault fault = Fault::None;
        {
            const std::lock_guard<std::mutex> hold(mutex_);
            const bool applies =
                method == "GET" && ranged && path.size() >= pathEnd_.size() &&
                path.compare(path.size() - pathEnd_.size(), pathEnd_.size(), pathEnd_) == 0;
            fault = applies ? fault_ : Fault::None;
        }
        const size_t split = answer.find("\r\n\r\n");
        if (fault != Fault::None && split != std::string::npos) {
            std::string body = answer.substr(split + 4);
            std::string head;
            for (const std::string& line : headLines(answer.substr(0, split + 4))) {
                if (!isHeader(line, "Content-Length")) {
                    head += line + "\r\n";
                }
            }
            size_t length = body.size();
            if (fault == Fault::FlipBytes) {
                for (size_t i = 7; i < body.size(); i += 61) {
                    body[i] = char(~body[i]);
                }
            } else if (fault == Fault::CutBody) {
                body.resize(body.size() / 2);
            } else if (fault == Fault::LongerLength) {
                length += 4096;
            } else {
                length = std::min<size_t>(length, 16);
            }
            answer = head + "Content-Length: " + std::to_string(length) + "\r\n\r\n" + body;
            ++given_;
        }
    }
    sendAll(client, answer);
    if (!lines.empty()) {
        --inFlight_;
    }
    const std::lock_guard<std::mutex> hold(mutex_);
    clients_.erase(std::find(clients_.begin(), clients_.end(), client));
    ::shutdown(client, SHUT_WR);
    ::close(client);
}

}  // namespace qt::test
