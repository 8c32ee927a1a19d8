import Foundation
import MeridianCore

/// Conversion between KML placemarks and GeoJSON features, with styles carried as Mapbox "simplestyle"
/// properties (`marker-color`, `stroke`, `stroke-width`, `stroke-opacity`, `fill`, `fill-opacity`).
public enum KMLFeatureConversion {
    /// The simplestyle property names Meridian reads and writes.
    public static let simplestyleKeys: Set<String> = ["marker-color", "stroke", "stroke-width", "stroke-opacity",
                                                      "fill", "fill-opacity"]

    /// The style simplestyle properties describe, or `nil` when there are none.
    /// - Parameter properties: Feature properties.
    /// - Throws: `FormatError` for a color that is not `#RRGGBB`/`#RRGGBBAA` or a non-numeric width/opacity.
    public static func style(simplestyle properties: [String: JSONValue]) throws(FormatError) -> KMLStyle? {
        func color(_ key: String, opacity opacityKey: String) throws(FormatError) -> KMLColor? {
            var c: KMLColor?
            if let v = properties[key] {
                guard let s = v.stringValue, let parsed = KMLColor(hex: s) else {
                    throw FormatError(format: "simplestyle", message: "\(key) must be a #RRGGBB or #RRGGBBAA color, got \(v)")
                }
                c = parsed
            }
            if let v = properties[opacityKey] {
                guard let o = v.doubleValue, o.isFinite, (0...1).contains(o) else {
                    throw FormatError(format: "simplestyle", message: "\(opacityKey) must be a number in 0…1, got \(v)")
                }
                let base = c ?? .white
                c = KMLColor(red: base.red, green: base.green, blue: base.blue, opacity: o)
            }
            return c
        }
        var style = KMLStyle()
        if let c = try color("marker-color", opacity: "marker-opacity") { style.iconStyle = KMLIconStyle(color: c) }
        let stroke = try color("stroke", opacity: "stroke-opacity")
        var width: Double?
        if let v = properties["stroke-width"] {
            guard let w = v.doubleValue, w.isFinite, w >= 0 else {
                throw FormatError(format: "simplestyle", message: "stroke-width must be a number ≥ 0, got \(v)")
            }
            width = w
        }
        if stroke != nil || width != nil { style.lineStyle = KMLLineStyle(color: stroke, width: width) }
        if let c = try color("fill", opacity: "fill-opacity") { style.polygonStyle = KMLPolygonStyle(fillColor: c) }
        return style == KMLStyle() ? nil : style
    }

    /// The simplestyle properties of a style (colors as `#rrggbb`, opacities as fractions rounded to 1/1000).
    /// - Parameter style: An effective style.
    public static func simplestyle(of style: KMLStyle?) -> [String: JSONValue] {
        guard let style else { return [:] }
        var out: [String: JSONValue] = [:]
        func opacity(_ c: KMLColor) -> JSONValue { .number((c.opacity * 1000).rounded() / 1000) }
        if let c = style.iconStyle?.color { out["marker-color"] = .string(c.hexRGB) }
        if let l = style.lineStyle {
            if let c = l.color {
                out["stroke"] = .string(c.hexRGB)
                out["stroke-opacity"] = opacity(c)
            }
            if let w = l.width { out["stroke-width"] = .number(w) }
        }
        if let p = style.polygonStyle {
            if let c = p.fillColor {
                out["fill"] = .string(c.hexRGB)
                out["fill-opacity"] = p.isFilled == false ? .number(0) : opacity(c)
            } else if p.isFilled == false {
                out["fill-opacity"] = .number(0)
            }
        }
        return out
    }

    /// A GeoJSON feature for a placemark: its geometry in WGS84 (`nil` for none, or a mixed `MultiGeometry` /
    /// `gx:Track`, which GeoJSON features here cannot hold), `name`, `description`, ExtendedData values and the
    /// simplestyle properties of its effective style; `id` from the placemark's id.
    /// - Parameters:
    ///   - placemark: The placemark.
    ///   - effectiveStyle: Its effective style (see `KMLStyleResolver`).
    public static func feature(from placemark: KMLPlacemark, effectiveStyle: KMLStyle?) -> Feature {
        var properties: [String: JSONValue] = [:]
        for (k, v) in placemark.extendedData?.values ?? [:] { properties[k] = .string(v) }
        if let n = placemark.name { properties["name"] = .string(n) }
        if let d = placemark.nodeDescription { properties["description"] = .string(d) }
        properties.merge(simplestyle(of: effectiveStyle)) { _, new in new }
        return Feature(geometry: placemark.geometry?.geometry, properties: properties,
                       id: placemark.id.map { .string($0) })
    }

    /// A placemark for a GeoJSON feature (or any feature, in any spatial reference: projected to WGS84):
    /// `name`/`title` become the name, `description` the description, simplestyle properties an inline style,
    /// and every other property an ExtendedData `Data` entry.
    /// - Parameters:
    ///   - feature: The feature.
    ///   - altitudeMode: Altitude mode of the geometry.
    /// - Throws: `KMLError.invalidGeometry`, or `FormatError` (wrapped as `.invalidGeometry`) for a bad
    ///   simplestyle value.
    public static func placemark(from feature: Feature, altitudeMode: KMLAltitudeMode? = .clampToGround)
        throws(KMLError) -> KMLPlacemark
    {
        let geometry = try feature.geometry.map { g throws(KMLError) in try KMLGeometry(geometry: g, altitudeMode: altitudeMode) }
        var p = KMLPlacemark(geometry: geometry)
        var rest = feature.properties
        func text(_ v: JSONValue) -> String {
            if let s = v.stringValue { return s }
            if let d = v.doubleValue { return KMLEncoder.format(d) }
            if let b = v.boolValue { return b ? "true" : "false" }
            if v.isNull { return "" }
            return String(decoding: v.encoded(), as: UTF8.self)
        }
        if let n = rest.removeValue(forKey: "name") ?? rest.removeValue(forKey: "title") { p.name = text(n) }
        if let d = rest.removeValue(forKey: "description") { p.nodeDescription = text(d) }
        do {
            p.style = try style(simplestyle: rest)
        } catch {
            throw .invalidGeometry("feature style: \(error.message)")
        }
        for k in simplestyleKeys.union(["marker-opacity"]) { rest.removeValue(forKey: k) }
        if !rest.isEmpty {
            p.extendedData = KMLExtendedData(data: rest.keys.sorted().map { .init(name: $0, value: text(rest[$0]!)) })
        }
        if let id = feature.id { p.id = Self.xmlID(text(id)) }
        return p
    }

    /// A valid XML `ID` (NCName) made from any text: invalid characters become `_`, a leading digit gets `_`.
    static func xmlID(_ s: String) -> String {
        var out = String(s.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." ? $0 : "_" })
        if out.isEmpty || !(out.first!.isLetter || out.first == "_") { out = "_" + out }
        return out
    }
}
