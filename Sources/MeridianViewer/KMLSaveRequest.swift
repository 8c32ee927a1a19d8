import Foundation
import Meridian

extension KMLBridge {
    /// The body of `POST /api/kml`: new placemarks, and optionally the opened file they are added to with the
    /// page's edits of its placemarks.
    struct SketchDocument: Decodable {
        var name: String?
        var placemarks: [SketchPlacemark]
        var source: SourceDocument?
    }

    /// One sketched placemark: its kind, vertices in Web Mercator meters and style.
    struct SketchPlacemark: Decodable {
        var type: String
        var coordinates: [[Double]]
        var style: SketchStyle?
        var name: String?
    }

    /// A palette icon id (points) or a `#rrggbb` color (lines, polygons).
    struct SketchStyle: Decodable {
        var icon: String?
        var color: String?
    }

    /// An opened KML or KMZ file sent back with the page's edits: everything the edits do not name is written
    /// back as the library read it (folders, shared styles, overlays, network links, unmodeled elements, the
    /// archive's other files).
    struct SourceDocument: Decodable {
        /// The file's bytes, base64.
        var data: String
        /// Edits of its placemarks, by the `id` `POST /api/kml/open` gave them.
        var edits: [PlacemarkEdit]
    }

    /// An edit of an opened placemark: deleted, or its geometry and/or style replaced (a restyle sets the palette's
    /// icon, line or fill sub-style inline, overriding the file's for that sub-style only).
    ///
    /// Each vertex of `coordinates` is `[x, y]` in Web Mercator meters, or `[x, y, k]` for a vertex the page got as
    /// the file's vertex `k`: when it still lies where the page got it (within the 0.005 m the open answer's
    /// rounding moves it), the file's own coordinate is kept exactly, altitude included; a moved one keeps that
    /// vertex's altitude.
    struct PlacemarkEdit: Decodable {
        var id: Int
        var delete: Bool?
        var coordinates: [[Double]]?
        var style: SketchStyle?
    }
}
