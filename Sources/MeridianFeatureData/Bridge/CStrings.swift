import Foundation
import CGDAL

/// A NULL-terminated array of C strings (GDAL's string lists: allowed drivers, open and creation options), alive
/// for the duration of `body`. GDAL spells the list `char **`, `const char **` or `const char *const *` depending on
/// the function; ``CStringList`` gives each spelling.
/// - Parameters:
///   - strings: The strings.
///   - body: Receives the list (whose pointers are `nil` when `strings` is empty: GDAL's "no list").
func withCStringList<T, E: Error>(_ strings: [String], _ body: (CStringList) throws(E) -> T) throws(E) -> T {
    guard !strings.isEmpty else { return try body(CStringList(base: nil)) }
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: copies.count + 1)
    defer { array.deallocate() }
    for (i, copy) in copies.enumerated() { array[i] = copy }
    array[copies.count] = nil
    return try body(CStringList(base: array))
}

/// A borrowed string list in the spellings GDAL's functions take.
struct CStringList {
    /// `char **` (GDAL 3.6's `CSLConstList`).
    let base: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    /// `const char *const *`.
    var constant: UnsafePointer<UnsafePointer<CChar>?>? { base.map { UnsafePointer(OpaquePointer($0)) } }
    /// `const char **`.
    var mutableConstant: UnsafeMutablePointer<UnsafePointer<CChar>?>? { base.map { UnsafeMutablePointer(OpaquePointer($0)) } }
}

/// A C string owned by GDAL (`CPLMalloc`ed, as `OSRExportToWkt` returns), copied and freed.
func takeGDALString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    guard let pointer else { return nil }
    defer { gdal.VSIFree(pointer) }
    return String(cString: pointer)
}
