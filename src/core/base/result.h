// Result<T>: a value or a one-line error message, for every failure a user can cause; Status is
// Result<void>, for steps that only succeed or fail.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace qt {

template <class T>
class Result {
public:
    Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose

    static Result failure(std::string message) {
        Result r;
        r.error_ = std::move(message);
        return r;
    }

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }

    // Reading the value of an error is a programmer mistake: it stops the program in every build.
    const T& value() const& {
        checkOk();
        return *value_;
    }
    T& value() & {
        checkOk();
        return *value_;
    }
    T&& value() && {
        checkOk();
        return std::move(*value_);
    }
    // The one-line message; empty when ok().
    const std::string& error() const { return error_; }

private:
    Result() = default;
    void checkOk() const {
        if (!ok()) {
            std::fprintf(stderr, "quadterrain: value() of an error result: %s\n", error_.c_str());
            std::abort();
        }
    }
    std::optional<T> value_;
    std::string error_;
};

// Success, or a one-line error message.
template <>
class Result<void> {
public:
    Result() = default;  // success

    static Result failure(std::string message) {
        Result r;
        r.error_ = std::move(message);
        r.failed_ = true;
        return r;
    }

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    // The one-line message; empty when ok().
    const std::string& error() const { return error_; }

private:
    std::string error_;
    bool failed_ = false;
};

using Status = Result<void>;

}  // namespace qt
