// nginx in the foreground (daemon off, one process) under a prefix of its own: its
// configuration, logs and temporary folders in a TempDir, nothing of the system's touched.
#include "http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace qt::test {
namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

// A port the kernel gives as free now (another process may still take it before nginx binds
// it: start() then tries another).
int freePort() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        return 0;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    int port = 0;
    if (::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
        ::getsockname(s, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    ::close(s);
    return port;
}

// The path of the requests that accessLog() makes to know the log holds every answered request.
constexpr const char* kSettled = "/.accesslog-settled-";

}  // namespace

int connectToLocalPort(int port) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        return -1;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(uint16_t(port));
    if (::connect(s, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
        ::close(s);
        return -1;
    }
    return s;
}

namespace {

bool accepts(int port) {
    const int s = connectToLocalPort(port);
    if (s < 0) {
        return false;
    }
    ::close(s);
    return true;
}

// An HTTP/1.0 GET of `path`, its answer read to the end (the server closes the connection).
bool get(int port, const std::string& path) {
    const int s = connectToLocalPort(port);
    if (s < 0) {
        return false;
    }
    const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    bool ok = ::send(s, request.data(), request.size(), MSG_NOSIGNAL) == ssize_t(request.size());
    char buffer[4096];
    while (ok) {
        const ssize_t got = ::recv(s, buffer, sizeof(buffer), 0);
        if (got <= 0) {
            ok = got == 0;
            break;
        }
    }
    ::close(s);
    return ok;
}

}  // namespace

HttpServer::HttpServer(const std::string& root, int slowBytesPerSecond)
    : root_(root), slowBytesPerSecond_(slowBytesPerSecond) {
    // curl goes to 127.0.0.1 directly, whatever proxy the environment names.
    ::setenv("no_proxy", "127.0.0.1", 1);
    ::setenv("NO_PROXY", "127.0.0.1", 1);
    if (::access(kNginx, X_OK) != 0) {
        why_ = std::string(kNginx) + " is missing (Debian's nginx package)";
        return;
    }
    for (int attempt = 0; attempt < 5 && !ok(); ++attempt) {
        const int port = freePort();
        if (port != 0 && start(root, slowBytesPerSecond, port)) {
            port_ = port;
        }
    }
}

HttpServer::~HttpServer() {
    stop();
}

bool HttpServer::start(const std::string& root, int slowBytesPerSecond, int port) {
    const std::string dir = prefix_.path("");
    const std::string conf = prefix_.path("nginx.conf");
    {
        std::ofstream out(conf);
        out << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
            << "pid " << dir << "nginx.pid;\nerror_log " << dir << "error.log;\n"
            << "events { worker_connections 64; }\n"
            << "http {\n"
            << "  log_format ranges '$request_method $uri $status $http_range';\n"
            << "  access_log " << dir << "access.log ranges;\n"
            << "  client_body_temp_path " << dir << "; proxy_temp_path " << dir << ";\n"
            << "  fastcgi_temp_path " << dir << "; uwsgi_temp_path " << dir << ";\n"
            << "  scgi_temp_path " << dir << ";\n"
            << "  types { application/octet-stream tif vrt; }\n"
            << "  server {\n"
            << "    listen 127.0.0.1:" << port << ";\n"
            << "    root " << root << ";\n"
            << "    location /slow/ { limit_rate " << slowBytesPerSecond << "; alias " << root
            << "/; }\n"
            << "    location /loop/ { return 302 /loop/again; }\n"
            << "    location /gone/ { return 404; }\n"
            << "  }\n}\n";
    }
    const std::string errorLog = dir + "error.log";
    const char* argv[] = {kNginx,       "-p", dir.c_str(),      "-c",
                          conf.c_str(), "-e", errorLog.c_str(), nullptr};
    // nginx's standard streams on /dev/null (it says what it has to in its error log): a test
    // process that dies leaves its nginx running, and one that held the test's output pipe would
    // keep whoever reads it (ctest, a pipe to tail) waiting for its end.
    posix_spawn_file_actions_t streams;
    ::posix_spawn_file_actions_init(&streams);
    ::posix_spawn_file_actions_addopen(&streams, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_addopen(&streams, 1, "/dev/null", O_WRONLY, 0);
    ::posix_spawn_file_actions_adddup2(&streams, 1, 2);
    pid_t pid = -1;
    const int spawned =
        ::posix_spawn(&pid, kNginx, &streams, nullptr, const_cast<char**>(argv), environ);
    ::posix_spawn_file_actions_destroy(&streams);
    if (spawned != 0) {
        why_ = "cannot start nginx";
        return false;
    }
    // Ready when it accepts a connection; gone when it could not bind the port.
    for (int waited = 0; waited < 200; ++waited) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            std::ifstream log(errorLog);
            std::getline(log, why_);
            return false;
        }
        if (accepts(port)) {
            pid_ = pid;
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    why_ = "nginx did not accept connections within 10 s";
    return false;
}

void HttpServer::stop() {
    if (pid_ > 0) {
        ::kill(pid_, SIGTERM);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
}

bool HttpServer::restart() {
    return pid_ > 0 || (port_ != 0 && start(root_, slowBytesPerSecond_, port_));
}

std::string HttpServer::url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

std::string HttpServer::accessLog() const {
    const auto read = [&] {
        std::ifstream in(prefix_.path("access.log"));
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    };
    // nginx writes a request's line after sending its answer, so a client can hold the answer
    // before the line is in the log. One worker serves requests in turn and logs each before it
    // takes the next: once a request of our own is logged, every one answered before it is too.
    if (pid_ > 0) {
        const std::string marker = std::string(kSettled) + std::to_string(++settles_);
        const std::string logged = "GET " + marker + " ";
        if (get(port_, marker)) {
            for (int waited = 0; waited < 1000 && read().find(logged) == std::string::npos;
                 ++waited) {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
    }
    std::istringstream lines(read());
    std::string kept;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(std::string("GET ") + kSettled, 0) != 0) {
            kept += line + "\n";
        }
    }
    return kept;
}

}  // namespace qt::test
