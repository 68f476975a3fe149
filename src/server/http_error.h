// An error a request gets as OpenAI's error JSON: {"error": {"message", "type", "param", "code"}}
// with an HTTP status. Thrown while a request is read or checked; the server turns it into the reply.
#pragma once

#include <string>

#include "auris/error.h"

namespace auris::server {

class HttpError : public Error {
 public:
  HttpError(int status, const std::string& message, std::string param = "", std::string code = "",
            std::string type = "")
      : Error(message), status_(status), param_(std::move(param)), code_(std::move(code)), type_(std::move(type)) {
    if (type_.empty()) type_ = status_ == 429 ? "rate_limit_error" : status_ >= 500 ? "server_error" : "invalid_request_error";
  }
  int status() const { return status_; }
  const std::string& param() const { return param_; }
  const std::string& code() const { return code_; }
  const std::string& type() const { return type_; }

 private:
  int status_;
  std::string param_, code_, type_;
};

// OpenAI's error body for the error.
std::string error_json(const HttpError& error);

}  // namespace auris::server
