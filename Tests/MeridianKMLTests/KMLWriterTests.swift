import Foundation
import MeridianCore
import MeridianEngine
import Testing
@testable import MeridianKML

@Suite struct KMLWriterTests {
    /// The seed sample: a point with an icon style, a polyline with a color, a polygon with a fill, sketched in
    /// Web Mercator, projected to WGS84, saved as KMZ and read back equal.
    static func seedDocument() throws -> KMLDocument {
        let wm = SpatialReference.webMercator
        let point = Point(x: -13_046_000, y: 4_036_000, spatialReference: wm)
        let line = Polyline([Coordinate(x: -13_050_000, y: 4_030_000), Coordinate(x: -13_040_000, y: 4_035_000),
                             Coordinate(x: -13_035_000, y: 4_031_000)], spatialReference: wm)
        // Clockwise in Web Mercator: Meridian must write it counter-clockwise.
        let polygon = Polygon(shell: [Coordinate(x: -13_060_000, y: 4_020_000), Coordinate(x: -13_060_000, y: 4_028_000),
                                      Coordinate(x: -13_050_000, y: 4_028_000), Coordinate(x: -13_050_000, y: 4_020_000)],
                              spatialReference: wm)
        var document = KMLDocument(name: "Untitled")
        var p1 = KMLPlacemark(geometry: try KMLGeometry(geometry: point, altitudeMode: .clampToGround))
        p1.style = KMLStyle(iconStyle: KMLIconStyle(icon: KMLIcon(url: try #require(URL(string: "https://static.arcgis.com/images/Symbols/Shapes/BlueStarLargeB.png"))), scale: 1))
        var p2 = KMLPlacemark(geometry: try KMLGeometry(geometry: line, altitudeMode: .clampToGround))
        p2.style = KMLStyle(lineStyle: KMLLineStyle(color: .red, width: 2))
        var p3 = KMLPlacemark(geometry: try KMLGeometry(geometry: polygon, altitudeMode: .clampToGround))
        p3.style = KMLStyle(polygonStyle: KMLPolygonStyle(fillColor: .yellow, isFilled: true, isOutlined: false))
        for p in [p1, p2, p3] { document.addChildNode(p) }
        return document
    }

    @Test func seedScenarioSavesKMZAndReadsBackEqual() throws {
        let document = try Self.seedDocument()
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("Untitled.kmz")
        try document.save(to: url)
        let back = try KMLDataset(url: url)
        #expect(back.document == document)
        let v = try TestSupport.validate(file: url)
        #expect(v.ok, "\(v.output)")

        // Projection: checked against PROJ directly, and the Web Mercator inverse formula (1e-9°).
        let p = back.document.allPlacemarks[0].geometry!.coordinates[0]
        let lon = -13_046_000 / 6_378_137.0 * 180 / .pi
        let lat = (2 * atan(exp(4_036_000 / 6_378_137.0)) - .pi / 2) * 180 / .pi
        #expect(abs(p.x - lon) < 1e-9 && abs(p.y - lat) < 1e-9)

        // Polygon: outer ring counter-clockwise and closed.
        guard case .polygon(let outer, _) = back.document.allPlacemarks[2].geometry!.shape else {
            Issue.record("not a polygon"); return
        }
        #expect(outer.first == outer.last)
        #expect(Polygon.signedArea(outer) > 0)

        // KMZ layout: doc.kml first, deflated.
        let archive = try ZipArchive(url: url, limits: .default)
        let entries = try archive.entries()
        #expect(entries.first?.name == "doc.kml")
        #expect(entries[0].compressedSize < entries[0].size)
    }

    /// The `<kml>` header declares the namespaces the content uses, learned by a first pass over the content; it is
    /// written first, whatever its length (here short and long root attributes in a namespace of their own).
    @Test func headerOfAnyLength() throws {
        var doc = KMLDocument(name: "h")
        doc.addChildNode(KMLPlacemark(geometry: .point(longitude: 1.5, latitude: -2.25), name: "p"))
        for length in [10, 1500, 200_000] {
            var dataset = KMLDataset(rootNode: doc)
            dataset.rootAttributes = [KMLAttribute(namespace: "urn:example:notes", prefix: "n", name: "note",
                                                   value: String(repeating: "a&", count: length / 2))]
            let data = dataset.kmlData
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\""))
            #expect(text.contains(" xmlns:n=\"urn:example:notes\"") && text.hasSuffix("</Document>\n</kml>\n"))
            let back = try KMLDataset(data: data)
            #expect(back.document == doc)
            #expect(back.rootAttributes.first { $0.name == "note" }?.value == dataset.rootAttributes[0].value)
        }
    }

    @Test func namespacesOnlyWhenUsed() throws {
        var doc = KMLDocument(name: "n")
        doc.addChildNode(KMLPlacemark(geometry: .point(longitude: 1, latitude: 2)))
        let plain = String(decoding: KMLDataset(rootNode: doc).kmlData, as: UTF8.self)
        #expect(plain.contains("xmlns=\"http://www.opengis.net/kml/2.2\""))
        #expect(!plain.contains("xmlns:gx"))
        doc.addChildNode(KMLPlacemark(geometry: .point(longitude: 1, latitude: 2, altitude: 3, altitudeMode: .relativeToSeaFloor)))
        let gx = KMLDataset(rootNode: doc).kmlData
        let text = String(decoding: gx, as: UTF8.self)
        #expect(text.contains("xmlns:gx=\"http://www.google.com/kml/ext/2.2\""))
        #expect(text.contains("<gx:altitudeMode>relativeToSeaFloor</gx:altitudeMode>"))
        let v = TestSupport.validate(kml: gx)
        #expect(v.ok, "\(v.output)")
        #expect(try KMLDataset(data: gx).document == doc)
    }

    @Test func escapingAndCDATA() throws {
        var p = KMLPlacemark(geometry: .point(longitude: 0, latitude: 0), name: "Fish & <Chips> \"quoted\"")
        p.nodeDescription = "<b>bold</b> with ]]> inside and ]]]]> twice"
        p.snippet = "a < b"
        p.extendedData = KMLExtendedData(data: [.init(name: "k&\"", value: "<x/> & ]]>", displayName: "D <1>")],
                                         schemaData: [.init(schemaUrl: "#s", fields: [.init(name: "f", value: "1 < 2")])])
        p.id = "id-1"
        var doc = KMLDocument(name: "esc\u{1}ape")  // a control character XML cannot carry is dropped
        doc.addChildNode(p)
        let data = KMLDataset(rootNode: doc).kmlData
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<name>Fish &amp; &lt;Chips&gt; \"quoted\"</name>"))
        #expect(text.contains("<![CDATA[<b>bold</b> with ]]]]><![CDATA[> inside"))
        let back = try KMLDataset(data: data)
        #expect(back.document.allPlacemarks == [p])
        #expect(back.document.name == "escape")
        let v = TestSupport.validate(kml: data)
        #expect(v.ok, "\(v.output)")
    }

    @Test func geometryConversions() throws {
        let wgs = SpatialReference.wgs84
        let multi = Polygon(parts: [
            .init(shell: [.init(x: 0, y: 0), .init(x: 0, y: 1), .init(x: 1, y: 1), .init(x: 1, y: 0), .init(x: 0, y: 0)],
                  holes: [[.init(x: 0.2, y: 0.2), .init(x: 0.8, y: 0.2), .init(x: 0.8, y: 0.8), .init(x: 0.2, y: 0.2)]]),
            .init(shell: [.init(x: 5, y: 5), .init(x: 6, y: 5), .init(x: 6, y: 6)]),
        ], spatialReference: wgs)
        let g = try KMLGeometry(geometry: multi, altitudeMode: .absolute, isExtruded: true, isTessellated: true)
        guard case .multiGeometry(let members) = g.shape, members.count == 2,
              case .polygon(let outer, let inner) = members[0].shape else { Issue.record("shape \(g.shape)"); return }
        #expect(Polygon.signedArea(outer) > 0)
        #expect(Polygon.signedArea(inner[0]) < 0)  // holes clockwise
        #expect(members[0].altitudeMode == .absolute && members[0].isExtruded == true && members[0].isTessellated == true)
        if case .polygon(let o2, _) = members[1].shape { #expect(o2.count == 4 && o2.first == o2.last) }
        #expect(g.geometry.map { if case .polygon(let p) = $0 { p.parts.count } else { 0 } } == 2)

        let mp = try KMLGeometry(geometry: Multipoint([.init(x: 1, y: 2), .init(x: 3, y: 4, z: 5)], spatialReference: wgs))
        #expect(mp.typeCounts == ["MultiGeometry": 1, "Point": 2])
        let line = try KMLGeometry(geometry: Polyline(parts: [[.init(x: 0, y: 0), .init(x: 1, y: 1)], [.init(x: 2, y: 2), .init(x: 3, y: 3)]],
                                            spatialReference: wgs))
        #expect(line.typeName == "MultiGeometry")
        let env = try KMLGeometry(geometry: Envelope(xMin: 0, yMin: 0, xMax: 1e6, yMax: 1e6, spatialReference: .webMercator))
        #expect(env.typeName == "Polygon")

        var doc = KMLDocument()
        for geometry in [g, mp, line, env] { doc.addChildNode(KMLPlacemark(geometry: geometry)) }
        let data = KMLDataset(rootNode: doc).kmlData
        #expect(TestSupport.validate(kml: data).ok)
        #expect(try KMLDataset(data: data).document == doc)

        #expect(throws: KMLError.self) { try KMLGeometry(geometry: Polyline([.init(x: 0, y: 0)], spatialReference: wgs)) }
        #expect(throws: KMLError.self) { try KMLGeometry(geometry: Point(x: .nan, y: 0, spatialReference: wgs)) }
        #expect(throws: KMLError.self) { try KMLGeometry(geometry: Multipoint([], spatialReference: wgs)) }
    }

    @Test func coordinatesAreExactAndWithoutExponents() throws {
        let values = [1e-7, -3.0e-10, 123.456789012345678, 0.1 + 0.2, -179.99999999999997, 1e-300,
                      .leastNonzeroMagnitude, -.greatestFiniteMagnitude, 1e300, Double(bitPattern: 5_000)]
        var doc = KMLDocument()
        for v in values { doc.addChildNode(KMLPlacemark(geometry: .point(longitude: v, latitude: v / 2, altitude: v))) }
        let text = String(decoding: KMLDataset(rootNode: doc).kmlData, as: UTF8.self)
        #expect(!text.contains("e-") && !text.contains("e+"))
        let back = try KMLDataset(data: Data(text.utf8)).document.allPlacemarks
        #expect(back.count == values.count)
        for (v, p) in zip(values, back) {
            let c = p.geometry!.coordinates[0]
            #expect(c.x == v && c.y == v / 2 && c.z == v, "\(v)")  // exact, subnormals and extremes included
        }
    }

    @Test func sharedStylesStyleMapsFoldersAndAllStyleKinds() throws {
        var doc = KMLDocument(name: "Styles")
        doc.addStyle(KMLStyle(id: "n", iconStyle: KMLIconStyle(icon: KMLIcon(href: "http://x/i.png"), scale: 1.5, heading: 45,
                                                               hotSpot: KMLHotSpot(x: 0.5, y: 0, xUnits: .fraction, yUnits: .pixels),
                                                               color: KMLColor(red: 1, green: 2, blue: 3, alpha: 4)),
                              labelStyle: KMLLabelStyle(color: .green, scale: 0.8),
                              lineStyle: KMLLineStyle(color: .blue, width: 3),
                              polygonStyle: KMLPolygonStyle(fillColor: .white, isFilled: false, isOutlined: true),
                              balloonStyle: KMLBalloonStyle(text: "<b>$[name]</b>", backgroundColor: .black,
                                                            textColor: .white, displayMode: "default")))
        doc.addStyle(KMLStyle(id: "h", iconStyle: KMLIconStyle(scale: 2)))
        doc.addStyleMap(KMLStyleMap(id: "m", normal: "#n", highlight: "#h"))
        var inner = KMLFolder(name: "Inner")
        var p = KMLPlacemark(geometry: .point(longitude: 1, latitude: 1), name: "p", styleUrl: "#m")
        p.style = KMLStyle(lineStyle: KMLLineStyle(width: 9))
        p.isVisible = false
        p.isOpen = true
        inner.addChildNode(p)
        var outer = KMLFolder(name: "Outer", features: [.folder(inner)])
        outer.isOpen = true
        doc.addChildNode(outer)
        let data = KMLDataset(rootNode: doc).kmlData
        let v = TestSupport.validate(kml: data)
        #expect(v.ok, "\(v.output)")
        let back = try KMLDataset(data: data)
        #expect(back.document == doc)
        let effective = back.effectiveStyle(for: back.document.allPlacemarks[0])
        #expect(effective?.iconStyle?.scale == 1.5)
        #expect(effective?.lineStyle == KMLLineStyle(width: 9))  // inline overrides the shared sub-style
        #expect(back.effectiveStyle(for: back.document.allPlacemarks[0], highlighted: true)?.iconStyle?.scale == 2)
        #expect(back.document.folderCount == 2)
    }

    @Test func localIconsArePackedIntoKMZAndRemoteKept() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let icon = dir.appendingPathComponent("pin.png")
        let iconBytes = Data((0..<300).map { UInt8($0 % 256) })
        try iconBytes.write(to: icon)
        var doc = KMLDocument(name: "Icons")
        doc.addStyle(KMLStyle(id: "local", iconStyle: KMLIconStyle(icon: KMLIcon(url: icon))))
        doc.addStyle(KMLStyle(id: "url", iconStyle: KMLIconStyle(icon: KMLIcon(href: icon.absoluteString))))  // a file: href, as read
        doc.addStyle(KMLStyle(id: "remote", iconStyle: KMLIconStyle(icon: KMLIcon(href: "https://example.com/a.png"))))
        doc.addChildNode(KMLPlacemark(geometry: .point(longitude: 0, latitude: 0), styleUrl: "#local"))
        let out = dir.appendingPathComponent("icons.kmz")
        try doc.save(to: out)
        let back = try KMLDataset(url: out)
        #expect(Set(back.iconHrefs) == ["files/pin.png", "https://example.com/a.png"])
        #expect(back.resources["files/pin.png"] == iconBytes)
        #expect(try TestSupport.validate(file: out).ok)
        // Reading the KMZ and saving it again keeps the packed icon.
        let again = dir.appendingPathComponent("again.kmz")
        try back.save(to: again)
        #expect(try KMLDataset(url: again).resources == back.resources)

        var missing = KMLDocument()
        missing.addStyle(KMLStyle(id: "x", iconStyle: KMLIconStyle(icon: KMLIcon(url: URL(fileURLWithPath: "/nonexistent/icon.png")))))
        #expect(throws: KMLError.missingResource(href: "/nonexistent/icon.png", reason: "no such file")) {
            try missing.save(to: dir.appendingPathComponent("missing.kmz"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("missing.kmz").path))
    }

    @Test func saveIsAtomicAndRefusesOverwriteUnlessAsked() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.seedDocument()
        for name in ["a.kml", "a.kmz"] {
            let url = dir.appendingPathComponent(name)
            try doc.save(to: url)
            #expect(throws: KMLError.fileExists(path: url.path)) { try doc.save(to: url) }
            try doc.save(to: url, overwrite: true)
            #expect(try TestSupport.validate(file: url).ok)
        }
        #expect(throws: KMLError.unsupportedExtension(path: dir.appendingPathComponent("a.txt").path)) {
            try doc.save(to: dir.appendingPathComponent("a.txt"))
        }
        #expect(throws: KMLError.self) { try doc.save(to: URL(fileURLWithPath: "/nonexistent-dir/x.kmz")) }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func bufferDocumentStyledLikeTheSample() throws {
        let wm = SpatialReference.webMercator
        let points = [Point(x: -10_775_000, y: 3_866_000, spatialReference: wm)]
        let buffers = try points.map { try GeometryEngine.buffer(around: $0, distance: 50_000) }
        let doc = try KMLDocument.bufferDocument(points: points, buffers: buffers, name: "Buffers")
        let dataset = KMLDataset(rootNode: doc)
        let placemarks = doc.allPlacemarks
        #expect(placemarks.count == 2)
        let bufferStyle = dataset.effectiveStyle(for: placemarks[0])
        #expect(bufferStyle?.polygonStyle?.fillColor?.kmlString == "9900ffff")  // yellow, 60% opacity
        #expect(bufferStyle?.lineStyle?.color == .green)
        #expect(dataset.effectiveStyle(for: placemarks[1])?.iconStyle?.color == .red)
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["b.kmz", "b.kml"] {
            let url = dir.appendingPathComponent(name)
            try doc.save(to: url)
            #expect(try TestSupport.validate(file: url).ok)
            #expect(try KMLDataset(url: url).document == doc)
        }
    }
}
