// CreateAndSaveKML: ArcGIS's "Create and save KML file" sample, ported to Meridian without a map.
//
// The sample lets the user sketch a point, a polyline or a polygon on a Web Mercator map, pick an icon (points) or
// one of 14 colours (lines and polygons), adds each sketch to a KML document as a styled placemark, and saves the
// document as a KMZ file. Here the three sketches are fixed, and the document is saved to the path given:
//
//   swift run CreateAndSaveKML OUTPUT.kmz
//
// It then reads the file back and prints each placemark's name, geometry type and style. Written with only the
// README and the doc comments.
import Foundation
import Meridian

/// The sample's colour choices, by the names its menu shows.
let colors: [(String, KMLColor)] = [
    ("Red", .red), ("Yellow", .yellow), ("White", .white), ("Purple", .purple), ("Orange", .orange),
    ("Magenta", .magenta), ("Light gray", .lightGray), ("Gray", .gray), ("Dark gray", .darkGray),
    ("Green", .green), ("Cyan", .cyan), ("Brown", .brown), ("Blue", .blue), ("Black", .black),
]

/// The sample's point style: an icon at its natural size.
func pointStyle(iconURL: URL) -> KMLStyle {
    KMLStyle(iconStyle: KMLIconStyle(icon: KMLIcon(url: iconURL), scale: 1))
}

/// The sample's line style: the chosen colour, 2 pixels wide.
func lineStyle(color: KMLColor) -> KMLStyle {
    KMLStyle(lineStyle: KMLLineStyle(color: color, width: 2))
}

/// The sample's polygon style: filled with the chosen colour, no outline.
func polygonStyle(color: KMLColor) -> KMLStyle {
    KMLStyle(polygonStyle: KMLPolygonStyle(fillColor: color, isFilled: true, isOutlined: false))
}

/// What went wrong, printed as one line.
struct ExampleError: Error, CustomStringConvertible {
    var description: String
}

/// The sketches as the map would give them: Web Mercator metres, around Dallas.
func sketches() throws -> [(name: String, geometry: Geometry, style: KMLStyle)] {
    let starText = "https://static.arcgis.com/images/Symbols/Shapes/BlueStarLargeB.png"
    guard let starURL = URL(string: starText) else { throw ExampleError(description: "bad icon URL \(starText)") }
    func mercator(_ x: Double, _ y: Double) -> Point { Point(x: x, y: y, spatialReference: .webMercator) }
    let point = mercator(-10_775_000, 3_865_000)
    let line = try Polyline(points: [mercator(-10_780_000, 3_860_000), mercator(-10_770_000, 3_870_000),
                                     mercator(-10_760_000, 3_865_000)])
    let polygon = try Polygon(points: [mercator(-10_790_000, 3_850_000), mercator(-10_780_000, 3_850_000),
                                       mercator(-10_780_000, 3_858_000), mercator(-10_790_000, 3_858_000)])
    // Polygons keep their type through projection: a Polygon in, a Polygon out.
    let projectedPolygon: Polygon = try GeometryEngine.project(polygon, into: .wgs84)
    return [("Star", point.geometry, pointStyle(iconURL: starURL)),
            ("Route", line.geometry, lineStyle(color: colors[12].1)),
            ("Field", projectedPolygon.geometry, polygonStyle(color: colors[1].1))]
}

func run(_ arguments: [String]) throws -> Int32 {
    guard arguments.count == 1, arguments[0].hasSuffix(".kmz") else {
        FileHandle.standardError.write(Data("usage: CreateAndSaveKML OUTPUT.kmz\n".utf8))
        return 2
    }
    let output = URL(fileURLWithPath: arguments[0])

    // Create a KML document; it is a value, so it is a var that addChildNode changes.
    var document = KMLDocument(name: "KML sketches")
    for sketch in try sketches() {
        // Project the sketch to WGS84 (KML is always longitude/latitude); the result keeps the input's type.
        let projected = try GeometryEngine.project(sketch.geometry, into: .wgs84)
        let kmlGeometry = try KMLGeometry(geometry: projected, altitudeMode: .clampToGround)
        // The placemark carries its style when it is added: the document keeps a copy.
        document.addChildNode(KMLPlacemark(geometry: kmlGeometry, name: sketch.name, style: sketch.style))
    }
    // A dataset around the document, as the sample makes for its KML layer.
    let dataset = KMLDataset(rootNode: document)
    print("document: \(dataset.document.allPlacemarks.count) placemarks")

    try document.save(to: output, overwrite: true)

    // Read the file back, as ArcGIS Earth would open it.
    let back = try KMLDataset(url: output)
    for placemark in back.document.allPlacemarks {
        let style = back.effectiveStyle(for: placemark)
        var drawn: [String] = []
        if let href = style?.iconStyle?.icon?.href { drawn.append("icon \(href)") }
        if let color = style?.lineStyle?.color { drawn.append("line \(color.hexRGB)") }
        if let color = style?.polygonStyle?.fillColor { drawn.append("fill \(color.hexRGB)") }
        let type = placemark.geometry?.typeName ?? "none"
        print("placemark \(placemark.name ?? "?"): \(type), \(drawn.joined(separator: ", "))")
    }
    print("saved \(output.path)")
    return 0
}

do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    FileHandle.standardError.write(Data("CreateAndSaveKML: \(error)\n".utf8))
    exit(1)
}
