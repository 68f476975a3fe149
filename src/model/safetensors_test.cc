#include "model/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string file_with_header(const std::string& header, const std::string& data) {
  const uint64_t n = header.size();
  return std::string(reinterpret_cast<const char*>(&n), 8) + header + data;
}

std::string error_of(const std::string& path) {
  try {
    SafetensorsFile file(path);
    for (const auto& name : file.names()) file.read(name);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Safetensors, WritesAndReadsF32AndF16) {
  Tensor a({2, 3});
  a.data = {1, -2, 0.5f, 3.25f, -0.125f, 65504};
  Tensor b({4});
  b.data = {0, 1e-3f, -7, 2};
  const std::string dir = test::temp_dir();
  write_safetensors(dir + "/f32.safetensors", {{"a", &a}, {"b", &b}}, false);
  SafetensorsFile f32(dir + "/f32.safetensors");
  EXPECT_EQ(f32.read("a"), a);
  EXPECT_EQ(f32.read("b"), b);
  EXPECT_EQ(f32.shape("a"), (std::vector<int64_t>{2, 3}));

  write_safetensors(dir + "/f16.safetensors", {{"a", &a}}, true);
  SafetensorsFile f16(dir + "/f16.safetensors");
  EXPECT_EQ(f16.read("a"), a);  // all values are exact in fp16
  EXPECT_FALSE(f16.has("b"));
}

TEST(Safetensors, ReadsHandWrittenBf16) {
  // 1.0 and -2.5 in bfloat16: 0x3f80, 0xc020.
  const std::string data("\x80\x3f\x20\xc0", 4);
  const std::string dir = test::temp_dir();
  write(dir + "/x.safetensors", file_with_header(R"({"x":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", data));
  EXPECT_EQ(SafetensorsFile(dir + "/x.safetensors").read("x").data, (std::vector<float>{1.0f, -2.5f}));
}

TEST(Safetensors, RejectsBadFiles) {
  const std::string dir = test::temp_dir(), path = dir + "/bad.safetensors";
  const std::pair<std::string, std::string> cases[] = {
      {std::string("\x00\x00\x00\x00\x00\x00\x00\x10", 8) + "{}", "header"},  // header length 2^60
      {std::string("\x05\x00", 2), "truncated"},
      {file_with_header("{not json", ""), "corrupted header"},
      {file_with_header(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", "1234"), "outside"},
      {file_with_header(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", "12345678"), "needs 12"},
      {file_with_header(R"({"x":{"dtype":"F32","shape":[2147483648,2147483648],"data_offsets":[0,8]}})", "12345678"), "larger than the file"},
      {file_with_header(R"({"x":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", "12345678"), "I64"},
      {file_with_header(R"({"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,8]}})", "12345678"), "invalid shape"},
      {file_with_header(R"({"x":[1,2]})", ""), "malformed"},
      // Nested deeper than the stack could print it back in the message about a malformed entry.
      {file_with_header(R"({"x":)" + std::string(1000000, '[') + std::string(1000000, ']') + "}", ""), "nested deeper than"},
  };
  for (const auto& [bytes, expected] : cases) {
    write(path, bytes);
    const std::string e = error_of(path);
    EXPECT_NE(e.find(expected), std::string::npos) << expected << " / " << e;
  }
  EXPECT_NE(error_of(dir + "/missing.safetensors").find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace auris
