// BufferAroundPoints: ArcGIS's "Create buffers around points" sample, ported to Meridian without a map.
//
// The sample lets the user tap points in North Central Texas, asks a radius in miles for each (more than 0, less
// than 300), refuses taps outside the area where the state plane projection is meaningful, and draws either one
// buffer per point or their union. Here the taps are arguments:
//
//   swift run BufferAroundPoints [--union] LATITUDE,LONGITUDE,MILES ...
//
// (no taps: Dallas 10 mi and Fort Worth 20 mi). For each buffer it prints its centre, radius, area in square miles
// and vertex count; with --union, the one unioned polygon. Written with only the README and the doc comments.
import Foundation
import Meridian

/// One tap: where, and the radius the user typed.
struct Tap {
    var point: Point
    var radiusMiles: Double
}

/// Reads `LATITUDE,LONGITUDE,MILES` into a tap in WGS84; `nil` if the text is not three numbers.
func parseTap(_ text: String) -> Tap? {
    let fields = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard fields.count == 3, let lat = fields[0], let lon = fields[1], let miles = fields[2] else { return nil }
    return Tap(point: Point(latitude: lat, longitude: lon), radiusMiles: miles)
}

func run(_ arguments: [String]) throws -> Int32 {
    let shouldUnion = arguments.contains("--union")
    let tapTexts = arguments.filter { $0 != "--union" }

    // The sample's spatial reference: NAD27 / Texas North Central, in US survey feet.
    let texas = try SpatialReference(wkid: 32038)
    // The sample's red dashed boundary: where planar buffers in this projection are reasonable.
    let boundary = try GeometryEngine.areaOfUsePolygon(of: texas)

    var taps: [Tap] = []
    for text in tapTexts.isEmpty ? ["32.7767,-96.797,10", "32.7555,-97.3308,20"] : tapTexts {
        guard let tap = parseTap(text) else {
            FileHandle.standardError.write(Data("BufferAroundPoints: expected LATITUDE,LONGITUDE,MILES, got '\(text)'\n".utf8))
            return 2
        }
        // Project the tap into the map's spatial reference: a Point comes back, no unwrapping needed.
        let projected = try GeometryEngine.project(tap.point, into: texas)
        guard try GeometryEngine.doesGeometry(boundary, contain: projected) else {
            print("refused \(text): tap within the boundary to add a buffer")
            continue
        }
        guard tap.radiusMiles > 0 && tap.radiusMiles < 300 else {
            print("refused \(text): enter a number between 0 and 300 miles")
            continue
        }
        taps.append(Tap(point: projected, radiusMiles: tap.radiusMiles))
    }
    guard !taps.isEmpty else {
        print("no buffers: every tap was refused")
        return 1
    }

    // Distances in miles beside their unit; the spatial reference's own unit (US survey feet) is the default.
    let buffers = try GeometryEngine.buffer(around: taps.map(\.point), distances: taps.map(\.radiusMiles),
                                            distanceUnit: .miles, shouldUnion: shouldUnion)
    // Planar areas are in the spatial reference's unit squared: square US survey feet.
    let squareFeet = AreaUnit(squareOf: .usSurveyFeet)
    if shouldUnion {
        let union = buffers[0]
        let area = squareFeet.convert(try GeometryEngine.area(of: union), to: .squareMiles)
        print("union: \(union.parts.count) parts, area \(area) sq mi, \(union.vertexCount) vertices")
    } else {
        for (i, (tap, buffer)) in zip(taps, buffers).enumerated() {
            let area = squareFeet.convert(try GeometryEngine.area(of: buffer), to: .squareMiles)
            print("buffer \(i + 1): centre (\(tap.point.x), \(tap.point.y)) ft, radius \(tap.radiusMiles) mi, "
                  + "area \(area) sq mi, \(buffer.vertexCount) vertices")
        }
    }
    return 0
}

do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    FileHandle.standardError.write(Data("BufferAroundPoints: \(error)\n".utf8))
    exit(1)
}
