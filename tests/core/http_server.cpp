// nginx in the foreground (daemon off, one process) under a prefix of its own: its
// configuration, logs and temporary folders in a TempDir, nothing of the system's touched.
#include "http_server.h"

#include <arpa/inet.h>
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

bool accepts(int port) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
        return false;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(uint16_t(port));
    const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    ::close(s);
    return ok;
}

}  // namespace

HttpServer::HttpServer(const std::string& root, int slowBytesPerSecond) {
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
    pid_t pid = -1;
    if (::posix_spawn(&pid, kNginx, nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
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

std::string HttpServer::url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

std::string HttpServer::accessLog() const {
    std::ifstream in(prefix_.path("access.log"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace qt::test
