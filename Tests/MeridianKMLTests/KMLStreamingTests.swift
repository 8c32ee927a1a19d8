import Foundation
import Testing
@testable import MeridianKML

@Suite struct KMLStreamingTests {
    @Test func streamingYieldsTheTreesPlacemarks() throws {
        for file in ["openlayers/states.kml", "openlayers/iceland.kmz", "libkml/kml_kmlsamples.kml", "togeojson/styles.kml"] {
            let url = TestSupport.samples.appendingPathComponent(file)
            let tree = try KMLDataset(url: url)
            var streamed: [KMLPlacemarkRecord] = []
            try KMLDataset.forEachPlacemark(in: url) { streamed.append($0); return true }
            #expect(streamed.map(\.placemark) == tree.document.allPlacemarks, "\(file)")
            #expect(streamed.map(\.index) == Array(0..<streamed.count))
            // Styles are resolved against those read so far; iceland.kmz defines its styles after its placemarks.
            guard file != "openlayers/iceland.kmz" else { continue }
            for r in streamed {
                #expect(r.effectiveStyle == tree.effectiveStyle(for: r.placemark), "\(file)")
            }
        }
    }

    @Test func folderPathsAndEarlyStop() throws {
        let url = TestSupport.samples.appendingPathComponent("libkml/kml_kmlsamples.kml")
        var paths: [[String]] = []
        try KMLDataset.forEachPlacemark(in: url) { r in
            paths.append(r.folderPath)
            return paths.count < 3
        }
        #expect(paths.count == 3)
        #expect(paths[0] == ["KML Samples", "Placemarks"])
    }

    @Test func handlerErrorsPropagate() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try KMLDataset.forEachPlacemark(in: TestSupport.samples.appendingPathComponent("openlayers/states.kml")) { _ in throw Stop() }
        }
    }

    /// A generated file of 20 000 placemarks (≈2 MB) streams with the same count the tree sees.
    @Test func generatedFile() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var doc = KMLDocument(name: "gen")
        doc.addStyle(KMLStyle(id: "s", lineStyle: KMLLineStyle(color: .red, width: 2)))
        for i in 0..<20_000 {
            doc.addChildNode(KMLPlacemark(geometry: .point(longitude: Double(i) * 1e-3, latitude: 45 + Double(i) * 1e-5), name: "P\(i)", styleUrl: "#s"))
        }
        let url = dir.appendingPathComponent("gen.kmz")
        try doc.save(to: url)
        var count = 0
        try KMLDataset.forEachPlacemark(in: url) { r in
            #expect(r.effectiveStyle?.lineStyle?.width == 2)
            count += 1
            return true
        }
        #expect(count == 20_000)
    }

    /// Each streamed placemark carries the line its start tag ends on, for located messages.
    @Test func placemarksCarryTheirLine() throws {
        let text = """
            <kml xmlns="http://www.opengis.net/kml/2.2"><Document>
            <Placemark><name>a</name></Placemark>

            <Folder><Placemark
               id="b"><name>b</name></Placemark></Folder>
            </Document></kml>
            """
        var lines: [Int] = []
        try KMLDataset.forEachPlacemark(data: Data(text.utf8)) { r in
            lines.append(r.line)
            return true
        }
        #expect(lines == [2, 5])
    }
}
