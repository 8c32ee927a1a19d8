import Foundation
import MeridianCore
import Testing
@testable import MeridianKML

/// The feature types' short descriptions, and `nodeDescription` (the `<description>` text, renamed from
/// `description` so that `print(document)` is short) read and written.
@Suite struct KMLFeaturesTests {
    static func document() throws -> KMLDocument {
        var document = KMLDocument(name: "Sketch")
        document.addStyle(KMLStyle(id: "fill", polygonStyle: KMLPolygonStyle(fillColor: .orange)))
        let square = Polygon(shell: [Coordinate(x: 0, y: 0), Coordinate(x: 1, y: 0), Coordinate(x: 1, y: 1)],
                             spatialReference: .wgs84)
        let html = String(repeating: "<p>a long balloon text</p>", count: 400)
        document.addChildNode(KMLPlacemark(geometry: try KMLGeometry(geometry: square), name: "Area", nodeDescription: html,
                                       styleUrl: "#fill"))
        document.addChildNode(KMLFolder(name: "Empty"))
        document.addChildNode(KMLPlacemark(geometry: nil))
        return document
    }

    /// addChildNode appends any node as the matching feature, a copy taken when added; the same document can be
    /// built in one expression from the nodes' `feature`s.
    @Test func addChildNodeAppendsACopyOfAnyNode() throws {
        var placemark = KMLPlacemark(geometry: .point(longitude: 1, latitude: 2), name: "P",
                                     style: KMLStyle(lineStyle: KMLLineStyle(color: .red)))
        var inner = KMLDocument(name: "Inner")
        inner.addChildNode(placemark)
        var document = KMLDocument(name: "D")
        document.addChildNode(placemark)
        document.addChildNode(KMLFolder(name: "F", features: [placemark.feature]))
        document.addChildNode(inner)
        let styled = placemark
        placemark.style = nil  // after adding: the document's copies keep their style
        #expect(document.features.count == 3)
        #expect(document.allPlacemarks.count == 3 && document.allPlacemarks.allSatisfy { $0.style?.lineStyle?.color == .red })
        guard case .folder(let f) = document.features[1], case .document(let d) = document.features[2] else {
            Issue.record("expected a folder then a document: \(document.features)")
            return
        }
        #expect(f.name == "F" && d.name == "Inner")
        let folder = KMLFolder(name: "F", features: [styled.feature])
        let oneExpression = KMLDocument(name: "D", features: [styled.feature, folder.feature, inner.feature])
        #expect(oneExpression == document)
    }

    @Test func descriptionsAreOneShortLine() throws {
        let document = try Self.document()
        #expect(document.description == #"KMLDocument("Sketch", 1 style, 3 features)"#)
        #expect(document.features.map(\.description)
            == [#"KMLPlacemark("Area", Polygon)"#, #"KMLFolder("Empty", 0 features)"#, "KMLPlacemark(unnamed, no geometry)"])
        #expect("\(document)".count < 80)  // the 10 000-character balloon text is not printed
        let long = KMLFolder(name: String(repeating: "n", count: 100), features: [.folder(KMLFolder())])
        #expect(long.description == "KMLFolder(\"\(String(repeating: "n", count: 60))…\", 1 feature)")
    }

    /// `<description>` goes to and comes back from `nodeDescription`, markup kept.
    @Test func nodeDescriptionIsTheDescriptionElement() throws {
        let document = try Self.document()
        let data = KMLDataset(rootNode: document).kmlData
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<description><![CDATA[<p>a long balloon text</p>"))
        let back = try KMLDataset(data: data).document
        #expect(back.allPlacemarks.map(\.nodeDescription) == document.allPlacemarks.map(\.nodeDescription))
        #expect(back.allPlacemarks[0].nodeDescription?.count == 26 * 400)
    }
}
