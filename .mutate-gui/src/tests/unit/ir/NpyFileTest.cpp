// The .npy subset (ir/NpyFile.h): the exact bytes numpy 1.x writes for
// version 1.0 files, version 2.0's four-byte header length, and a clear
// refusal for each way a file can be outside the subset.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "ir/NpyFile.h"

using namespace dfc::ir;

namespace {

// A header of `dict` padded with spaces and '\n' to `total` bytes (magic and length included).
std::string v1Header(const std::string& dict, size_t total) {
  const size_t length = total - 10;
  std::string h =
      std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(length & 0xff) + static_cast<char>(length >> 8);
  return h + dict + std::string(length - dict.size() - 1, ' ') + "\n";
}

std::string floatBytes(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

}  // namespace

TEST_CASE("encodeNpy writes numpy's version 1.0 bytes, the header padded to 64", "[npy]") {
  Tensor t(TensorType{DType::F32, {2}});
  t.data<float>()[0] = 1.0f;
  t.data<float>()[1] = -2.0f;
  const std::string want =
      v1Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 128) + floatBytes({1.0f, -2.0f});
  CHECK(encodeNpy(t) == want);
  CHECK(encodeNpy(t).size() == 136);  // what np.save(np.array([1, -2], '<f4')) writes

  Tensor scalar(TensorType{DType::Bool, {}});
  scalar.data<bool>()[0] = true;
  CHECK(encodeNpy(scalar) == v1Header("{'descr': '|b1', 'fortran_order': False, 'shape': (), }", 128) + "\x01");

  Tensor matrix(TensorType{DType::I64, {2, 3}});
  CHECK(encodeNpy(matrix).substr(0, 128) ==
        v1Header("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 128));
  CHECK(encodeNpy(matrix).size() == 128 + 48);
}

TEST_CASE("encodeNpy pads a header past 128 bytes to 192", "[npy]") {
  // 54 characters of dict around a shape "(1, 1, ..., 1)" of 25 ones (75
  // characters): 10 + 129 + 1 = 140 bytes unpadded, so 192 with the padding.
  Tensor t(TensorType{DType::I32, Shape(25, 1)});
  const std::string bytes = encodeNpy(t);
  CHECK(bytes.size() == 192 + 4);
  CHECK(static_cast<unsigned char>(bytes[8]) == 182);
  CHECK(bytes[9] == 0);
  CHECK(bytes[191] == '\n');
  CHECK(bytes.substr(139, 52) == std::string(52, ' '));
}

TEST_CASE("parseNpy reads what encodeNpy writes, every IR element type", "[npy]") {
  Tensor t(TensorType{DType::I32, {3, 1}});
  t.data<int32_t>()[0] = -7;
  t.data<int32_t>()[1] = 0;
  t.data<int32_t>()[2] = 2147483647;
  auto a = parseNpy(encodeNpy(t), "t.npy");
  REQUIRE(a);
  CHECK(a->element == NpyElement{'i', 4});
  CHECK(a->shape == Shape{3, 1});
  CHECK(a->typeText() == "i32[3,1]");
  auto back = npyToTensor(*a, DType::I32, "t.npy");
  REQUIRE(back);
  CHECK(back->type() == t.type());
  CHECK(std::vector<int32_t>(back->data<int32_t>(), back->data<int32_t>() + 3) ==
        std::vector<int32_t>{-7, 0, 2147483647});
  for (DType d : {DType::F32, DType::I64, DType::I32, DType::Bool}) {
    auto round = parseNpy(encodeNpy(Tensor(TensorType{d, {2}})), "z.npy");
    REQUIRE(round);
    CHECK(round->element == npyElementOf(d));
  }
}

TEST_CASE("parseNpy reads version 2.0 and numpy's other element types", "[npy]") {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  const uint32_t length = static_cast<uint32_t>(dict.size() + 1);
  v2.append(reinterpret_cast<const char*>(&length), 4);
  const double one = 1.0;
  v2 += dict + "\n" + std::string(reinterpret_cast<const char*>(&one), 8);
  auto a = parseNpy(v2, "v2.npy");
  REQUIRE(a);
  CHECK(a->element == NpyElement{'f', 8});
  CHECK(a->typeText() == "f64[1]");
  // Readable, but not an f32 tensor: the error names both types.
  auto t = npyToTensor(*a, DType::F32, "v2.npy");
  REQUIRE(!t);
  CHECK(t.error().message() == "v2.npy: holds f64 elements, f32 needed");
  for (const char* descr : {"|u1", "|i1", "<u2", "<i2", "<f2", "<u8", "=f4"})
    CHECK(parseNpy(v1Header(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (0,), }", 128),
                   "e.npy"));
}

TEST_CASE("parseNpy refuses files outside the subset, naming the file and the reason", "[npy]") {
  auto refusal = [](const std::string& bytes) {
    auto a = parseNpy(bytes, "bad.npy");
    return a ? std::string("accepted") : a.error().message();
  };
  auto file = [](const std::string& dict, const std::string& data = "") { return v1Header(dict, 128) + data; };
  CHECK(refusal("PK\x03\x04 not npy") == "bad.npy: not a .npy file (no \\x93NUMPY magic)");
  CHECK(refusal(std::string("\x93NUMPY\x03\x00\x00\x00\x00\x00", 12)) ==
        "bad.npy: .npy format version 3.0 is not supported (1.0 and 2.0 are)");
  CHECK(refusal(std::string("\x93NUMPY\x01\x00\xff\x00{}", 12)) == "bad.npy: .npy header longer than the file");
  CHECK(refusal(file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", "abcd")) ==
        "bad.npy: descr '>f4': big-endian data is not supported (save it little-endian, '<')");
  CHECK(refusal(file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }")) ==
        "bad.npy: descr '<c8': not a supported element type (f2/f4/f8, i1..i8, u1..u8, b1)");
  CHECK(refusal(file("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", "abcd")) ==
        "bad.npy: .npy header: Fortran-order arrays are not supported (save a C-order array)");
  CHECK(refusal(file("{'descr': '<f4', 'shape': (1,), }", "abcd")) ==
        "bad.npy: .npy header: needs the keys 'descr', 'fortran_order' and 'shape'");
  CHECK(refusal(file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }")) ==
        "bad.npy: .npy header: unexpected or repeated key 'descr'");
  CHECK(refusal(file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }")) ==
        "bad.npy: .npy header: 'shape' is not a tuple of sizes");
  CHECK(refusal(file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(23, 'x'))) ==
        "bad.npy: f32[2,3] needs 24 data bytes, the file has 23");
  CHECK(refusal(file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(25, 'x'))) ==
        "bad.npy: f32[2,3] needs 24 data bytes, the file has 25");
  CHECK(refusal(file("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }")) ==
        "bad.npy: shape [4294967296,4294967296] is too large");
  CHECK(refusal(file("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), } x")) ==
        "bad.npy: .npy header: text after the dict");
}
