// A callable passed by reference: a pointer to it and a function that calls it, so that passing
// a lambda with any captures neither copies nor allocates (std::function allocates for captures
// past its small buffer). Only for parameters: it must not outlive the callable.
#pragma once

#include <type_traits>
#include <utility>

namespace qt {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
    FunctionRef(const F& f)  // implicit: from any callable, as std::function
        : callable_(&f), call_([](const void* c, Args... args) -> R {
              return (*static_cast<const F*>(c))(std::forward<Args>(args)...);
          }) {}

    R operator()(Args... args) const { return call_(callable_, std::forward<Args>(args)...); }

private:
    const void* callable_;
    R (*call_)(const void*, Args...);
};

}  // namespace qt
