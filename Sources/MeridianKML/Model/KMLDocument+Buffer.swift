import Foundation
import MeridianCore

extension KMLDocument {
    /// The shared style id of buffer polygons in `bufferDocument`.
    public static let bufferStyleID = "meridian-buffer"
    /// The shared style id of input geometries in `bufferDocument`.
    public static let inputStyleID = "meridian-input"

    /// The style of buffer polygons, as the ArcGIS buffer sample draws them: yellow fill at 60% opacity
    /// (alpha 153) with a green outline 2 px wide.
    public static var bufferStyle: KMLStyle {
        KMLStyle(id: bufferStyleID,
                 lineStyle: KMLLineStyle(color: .green, width: 2),
                 polygonStyle: KMLPolygonStyle(fillColor: KMLColor(red: 255, green: 255, blue: 0, opacity: 0.6)))
    }

    /// Google's white circle icon, which the input style tints red.
    static let circleIcon = URL(string: "https://maps.google.com/mapfiles/kml/shapes/placemark_circle.png")
        .map(KMLIcon.init(url:))

    /// The style of input geometries: red point icons (Google's circle icon tinted red) and red lines.
    public static var inputStyle: KMLStyle {
        KMLStyle(id: inputStyleID,
                 iconStyle: KMLIconStyle(icon: circleIcon, scale: 1, color: .red),
                 lineStyle: KMLLineStyle(color: .red, width: 2),
                 polygonStyle: KMLPolygonStyle(fillColor: .red, isFilled: false))
    }

    /// A document showing buffers and the geometries they were made from, for `meridian buffer -o out.kmz`:
    /// a "Buffers" folder of polygons styled `bufferStyle` and an "Inputs" folder styled `inputStyle`, both
    /// styles shared on the document. Geometries in any spatial reference are projected to WGS84.
    /// - Parameters:
    ///   - inputs: The buffered geometries (points, lines, polygons), drawn red; may be empty.
    ///   - buffers: The buffer polygons, drawn yellow (60% opacity) with a green outline.
    ///   - name: The document's name.
    /// - Throws: `KMLError.invalidGeometry` when a geometry cannot be projected or is empty.
    public static func bufferDocument(inputs: [Geometry], buffers: [Polygon], name: String = "Buffers")
        throws(KMLError) -> KMLDocument
    {
        var document = KMLDocument(name: name)
        document.addStyle(bufferStyle)
        document.addStyle(inputStyle)
        var bufferFolder = KMLFolder(name: "Buffers")
        for (i, polygon) in buffers.enumerated() where !polygon.parts.isEmpty {
            let g = try KMLGeometry(geometry: polygon, altitudeMode: .clampToGround, isTessellated: true)
            bufferFolder.addChildNode(KMLPlacemark(geometry: g, name: "Buffer \(i + 1)", styleUrl: "#\(bufferStyleID)"))
        }
        document.addChildNode(bufferFolder)
        if !inputs.isEmpty {
            var inputFolder = KMLFolder(name: "Inputs")
            for (i, input) in inputs.enumerated() {
                let g = try KMLGeometry(geometry: input, altitudeMode: .clampToGround)
                inputFolder.addChildNode(KMLPlacemark(geometry: g, name: "\(input.typeName) \(i + 1)",
                                                  styleUrl: "#\(inputStyleID)"))
            }
            document.addChildNode(inputFolder)
        }
        return document
    }

    /// `bufferDocument(inputs:buffers:name:)` for buffered points (the sample's case).
    /// - Parameters:
    ///   - points: The buffered points, drawn red.
    ///   - buffers: The buffer polygons.
    ///   - name: The document's name.
    /// - Throws: `KMLError.invalidGeometry`.
    public static func bufferDocument(points: [Point], buffers: [Polygon], name: String = "Buffers")
        throws(KMLError) -> KMLDocument
    {
        try bufferDocument(inputs: points.map(Geometry.point), buffers: buffers, name: name)
    }
}
