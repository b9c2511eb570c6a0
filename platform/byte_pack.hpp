#pragma once
// Values packed into bytes and read back bit for bit, for the messages ranks exchange
// (platform/ranks.hpp): numbers as their bytes, strings and vectors after their length.
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace backsweep {

class BytePacker {
 public:
  template <class T>
    requires std::is_trivially_copyable_v<T>
  BytePacker& operator<<(const T& value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  BytePacker& operator<<(const std::string& text) {
    *this << text.size();
    bytes_ += text;
    return *this;
  }
  template <class T>
  BytePacker& operator<<(const std::vector<T>& values) {
    *this << values.size();
    for (const T& value : values) *this << value;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class ByteUnpacker {
 public:
  explicit ByteUnpacker(const std::string& bytes) : bytes_(bytes) {}
  explicit ByteUnpacker(std::string&&) = delete;  // it reads the string in place
  template <class T>
    requires std::is_trivially_copyable_v<T>
  ByteUnpacker& operator>>(T& value) {
    std::memcpy(&value, take(sizeof value), sizeof value);
    return *this;
  }
  ByteUnpacker& operator>>(std::string& text) {
    std::size_t size = 0;
    *this >> size;
    text.assign(take(size), size);
    return *this;
  }
  template <class T>
  ByteUnpacker& operator>>(std::vector<T>& values) {
    std::size_t size = 0;
    *this >> size;
    if (size > bytes_.size()) throw std::length_error("a message's vector is longer than the message");
    values.resize(size);
    for (T& value : values) *this >> value;
    return *this;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  const char* take(std::size_t size) {
    if (size > bytes_.size() - at_) throw std::length_error("a message ended early");
    const char* start = bytes_.data() + at_;
    at_ += size;
    return start;
  }
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace backsweep
