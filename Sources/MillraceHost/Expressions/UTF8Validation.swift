/// Whether `bytes` are well-formed UTF-8 (no overlong forms, no surrogates, nothing above
/// U+10FFFF), checked without allocating.
func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
  let count = bytes.count
  var index = 0
  while index < count {
    let at = index
    func continuation(_ offset: Int, _ range: ClosedRange<UInt8>) -> Bool {
      at + offset < count && range.contains(bytes[at + offset])
    }
    let lead = bytes[index]
    let tail = UInt8(0x80)...0xBF
    let length: Int
    switch lead {
    case 0x00...0x7F:
      index += 1
      continue
    case 0xC2...0xDF:
      guard continuation(1, tail) else { return false }
      length = 2
    case 0xE0:
      guard continuation(1, 0xA0...0xBF), continuation(2, tail) else { return false }
      length = 3
    case 0xE1...0xEC, 0xEE...0xEF:
      guard continuation(1, tail), continuation(2, tail) else { return false }
      length = 3
    case 0xED:
      guard continuation(1, 0x80...0x9F), continuation(2, tail) else { return false }
      length = 3
    case 0xF0:
      guard continuation(1, 0x90...0xBF), continuation(2, tail), continuation(3, tail) else {
        return false
      }
      length = 4
    case 0xF1...0xF3:
      guard continuation(1, tail), continuation(2, tail), continuation(3, tail) else {
        return false
      }
      length = 4
    case 0xF4:
      guard continuation(1, 0x80...0x8F), continuation(2, tail), continuation(3, tail) else {
        return false
      }
      length = 4
    default:
      return false
    }
    index += length
  }
  return true
}
