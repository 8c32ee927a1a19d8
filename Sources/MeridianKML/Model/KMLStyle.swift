import Foundation

/// Whether a color is used as is or randomized (KML `colorMode`).
public enum KMLColorMode: String, Sendable, Hashable {
    /// Use the color as is.
    case normal
    /// A random linear scale of the color.
    case random
}

/// The units of a hot spot coordinate (`xunits`/`yunits`).
public enum KMLUnits: String, Sendable, Hashable {
    /// A fraction of the icon's size.
    case fraction
    /// Pixels.
    case pixels
    /// Pixels inset from the top-right edge.
    case insetPixels
}

/// The point of an icon anchored to the placemark's position (`<hotSpot>`).
public struct KMLHotSpot: Sendable, Hashable {
    /// Horizontal position.
    public var x: Double
    /// Vertical position.
    public var y: Double
    /// Units of `x`.
    public var xUnits: KMLUnits
    /// Units of `y`.
    public var yUnits: KMLUnits

    /// Creates a hot spot.
    /// - Parameters:
    ///   - x: Horizontal position from the icon's left edge: 0…1 for `.fraction`, pixels otherwise.
    ///   - y: Vertical position from the icon's bottom edge: 0…1 for `.fraction`, pixels otherwise.
    ///   - xUnits: Units of x (default fraction).
    ///   - yUnits: Units of y (default fraction).
    public init(x: Double, y: Double, xUnits: KMLUnits = .fraction, yUnits: KMLUnits = .fraction) {
        self.x = x
        self.y = y
        self.xUnits = xUnits
        self.yUnits = yUnits
    }
}

/// An icon image reference (`<Icon>`), ArcGIS's `KMLIcon`.
public struct KMLIcon: Sendable, Hashable {
    /// The image as KML's `<href>` text: a URL, a path relative to the document (or inside the KMZ), or a local
    /// file path. Kept as text because an `href` read from a file need not be a valid `URL`.
    public var href: String?
    /// Preserved children (`gx:x`, `gx:w`, `refreshMode`, …).
    public var unmodeledElements: [KMLElement]

    /// Creates an icon from the image's URL (ArcGIS's `KMLIcon(url:)`).
    /// - Parameter url: A web URL, a `file:` URL (copied into a KMZ when saving one), or a relative URL (a path
    ///   inside the KMZ or beside the KML file).
    public init(url: URL) {
        self.init(href: url.isFileURL ? url.path : url.absoluteString)
    }

    /// An icon with its `<href>` text as read from a file.
    init(href: String?, unmodeledElements: [KMLElement] = []) {
        self.href = href
        self.unmodeledElements = unmodeledElements
    }
}

/// What KML's ColorStyle sub-styles (`IconStyle`, `LineStyle`, `PolyStyle`, `LabelStyle`) have in common, so one
/// decoder loop serves them all.
protocol KMLColorStyleFields {
    /// `id` attribute.
    var id: String? { get set }
    /// `<color>`.
    var color: KMLColor? { get set }
    /// `<colorMode>`.
    var colorMode: KMLColorMode? { get set }
    /// Preserved children.
    var unmodeledElements: [KMLElement] { get set }
}

extension KMLIconStyle: KMLColorStyleFields {}
extension KMLLineStyle: KMLColorStyleFields {}
extension KMLPolygonStyle: KMLColorStyleFields {}
extension KMLLabelStyle: KMLColorStyleFields {}

/// How point placemarks are drawn (`<IconStyle>`).
public struct KMLIconStyle: Sendable, Hashable {
    /// `id` attribute.
    public var id: String?
    /// Tint applied to the icon.
    public var color: KMLColor?
    /// Color mode.
    public var colorMode: KMLColorMode?
    /// Size factor (1 = the image's size).
    public var scale: Double?
    /// Rotation in degrees clockwise from north.
    public var heading: Double?
    /// The image.
    public var icon: KMLIcon?
    /// The anchor point.
    public var hotSpot: KMLHotSpot?
    /// Preserved children (e.g. `gx:labelVisibility`).
    public var unmodeledElements: [KMLElement]

    /// Creates an icon style (ArcGIS's `KMLIconStyle(icon:scale:)`).
    /// - Parameters:
    ///   - icon: The image, e.g. `KMLIcon(url: URL(string: "https://…/pin.png")!)`; `nil` for the viewer's default.
    ///   - scale: Size factor, > 0 (1 is the image's natural size).
    ///   - heading: Rotation in degrees clockwise from north, 0…360.
    ///   - hotSpot: Anchor.
    ///   - color: Tint.
    public init(icon: KMLIcon? = nil, scale: Double? = nil, heading: Double? = nil, hotSpot: KMLHotSpot? = nil,
                color: KMLColor? = nil) {
        self.icon = icon
        self.scale = scale
        self.heading = heading
        self.hotSpot = hotSpot
        self.color = color
        self.unmodeledElements = []
    }
}

/// How lines and polygon outlines are drawn (`<LineStyle>`).
public struct KMLLineStyle: Sendable, Hashable {
    /// `id` attribute.
    public var id: String?
    /// Line color.
    public var color: KMLColor?
    /// Color mode.
    public var colorMode: KMLColorMode?
    /// Width in pixels.
    public var width: Double?
    /// Preserved children (`gx:outerColor`, `gx:physicalWidth`, …).
    public var unmodeledElements: [KMLElement]

    /// Creates a line style.
    /// - Parameters:
    ///   - color: Line color.
    ///   - width: Width in pixels.
    public init(color: KMLColor? = nil, width: Double? = nil) {
        self.color = color
        self.width = width
        self.unmodeledElements = []
    }
}

/// How polygons are drawn (`<PolyStyle>`), ArcGIS's `KMLPolygonStyle`.
public struct KMLPolygonStyle: Sendable, Hashable {
    /// `id` attribute.
    public var id: String?
    /// Fill color (KML's `<color>` of a `<PolyStyle>`; ArcGIS's `fillColor`).
    public var fillColor: KMLColor?
    /// Color mode.
    public var colorMode: KMLColorMode?
    /// Whether the polygon is filled (`fill`; KML's default is true).
    public var isFilled: Bool?
    /// Whether the outline is drawn with the line style (`outline`; KML's default is true).
    public var isOutlined: Bool?
    /// Preserved children.
    public var unmodeledElements: [KMLElement]

    /// Creates a polygon style (ArcGIS's `KMLPolygonStyle(fillColor:)`).
    /// - Parameters:
    ///   - fillColor: Fill color.
    ///   - isFilled: Whether to fill (nil: KML's default, filled).
    ///   - isOutlined: Whether to outline (nil: KML's default, outlined).
    public init(fillColor: KMLColor? = nil, isFilled: Bool? = nil, isOutlined: Bool? = nil) {
        self.fillColor = fillColor
        self.isFilled = isFilled
        self.isOutlined = isOutlined
        self.unmodeledElements = []
    }

    /// The `<color>` element's value, for the decoder shared by all colour sub-styles.
    var color: KMLColor? {
        get { fillColor }
        set { fillColor = newValue }
    }
}

/// How labels are drawn (`<LabelStyle>`).
public struct KMLLabelStyle: Sendable, Hashable {
    /// `id` attribute.
    public var id: String?
    /// Text color.
    public var color: KMLColor?
    /// Color mode.
    public var colorMode: KMLColorMode?
    /// Size factor, > 0 (1 = the viewer's normal label size).
    public var scale: Double?
    /// Preserved children.
    public var unmodeledElements: [KMLElement]

    /// Creates a label style.
    /// - Parameters:
    ///   - color: Text color.
    ///   - scale: Size factor, > 0 (1 is the viewer's normal label size).
    public init(color: KMLColor? = nil, scale: Double? = nil) {
        self.color = color
        self.scale = scale
        self.unmodeledElements = []
    }
}

/// How the description balloon is drawn (`<BalloonStyle>`).
public struct KMLBalloonStyle: Sendable, Hashable {
    /// `id` attribute.
    public var id: String?
    /// Background color.
    public var backgroundColor: KMLColor?
    /// Text color.
    public var textColor: KMLColor?
    /// The balloon template (HTML, with `$[name]` entities).
    public var text: String?
    /// `default` or `hide`.
    public var displayMode: String?
    /// Preserved children.
    public var unmodeledElements: [KMLElement]

    /// Creates a balloon style.
    /// - Parameters:
    ///   - text: The balloon template.
    ///   - backgroundColor: Background.
    ///   - textColor: Text color.
    ///   - displayMode: `default` or `hide`.
    public init(text: String? = nil, backgroundColor: KMLColor? = nil, textColor: KMLColor? = nil,
                displayMode: String? = nil) {
        self.text = text
        self.backgroundColor = backgroundColor
        self.textColor = textColor
        self.displayMode = displayMode
        self.unmodeledElements = []
    }
}

/// A KML `<Style>`: the sub-styles for icons, labels, lines, polygons and balloons.
///
/// Share a style by adding it (with an `id`) to `KMLDocument.styles` and setting `styleUrl = "#id"` on
/// placemarks, or set it inline as `KMLPlacemark.style`.
public struct KMLStyle: Sendable, Hashable {
    /// `id` attribute (needed for shared styles).
    public var id: String?
    /// Point icons.
    public var iconStyle: KMLIconStyle?
    /// Labels.
    public var labelStyle: KMLLabelStyle?
    /// Lines and outlines.
    public var lineStyle: KMLLineStyle?
    /// Polygon fills.
    public var polygonStyle: KMLPolygonStyle?
    /// Balloons.
    public var balloonStyle: KMLBalloonStyle?
    /// Preserved children (`ListStyle`, …).
    public var unmodeledElements: [KMLElement]

    /// Creates a style.
    /// - Parameters:
    ///   - id: Identifier for shared styles.
    ///   - iconStyle: Icons.
    ///   - labelStyle: Labels.
    ///   - lineStyle: Lines.
    ///   - polygonStyle: Polygons.
    ///   - balloonStyle: Balloons.
    public init(id: String? = nil, iconStyle: KMLIconStyle? = nil, labelStyle: KMLLabelStyle? = nil,
                lineStyle: KMLLineStyle? = nil, polygonStyle: KMLPolygonStyle? = nil,
                balloonStyle: KMLBalloonStyle? = nil) {
        self.id = id
        self.iconStyle = iconStyle
        self.labelStyle = labelStyle
        self.lineStyle = lineStyle
        self.polygonStyle = polygonStyle
        self.balloonStyle = balloonStyle
        self.unmodeledElements = []
    }

    /// This style with every sub-style that `other` sets replacing this one's (KML's cascading: an inline style
    /// overrides the shared one sub-style by sub-style). The `id` is kept.
    /// - Parameter other: The overriding style.
    public func merged(with other: KMLStyle) -> KMLStyle {
        var s = self
        if let v = other.iconStyle { s.iconStyle = v }
        if let v = other.labelStyle { s.labelStyle = v }
        if let v = other.lineStyle { s.lineStyle = v }
        if let v = other.polygonStyle { s.polygonStyle = v }
        if let v = other.balloonStyle { s.balloonStyle = v }
        s.unmodeledElements += other.unmodeledElements
        return s
    }
}

/// A `<StyleMap>`: the style for the normal and the highlighted (hovered) state.
public struct KMLStyleMap: Sendable, Hashable {
    /// One `<Pair>`: a state's style, by URL or inline.
    public struct Pair: Sendable, Hashable {
        /// `normal` or `highlight`.
        public var key: String
        /// Reference to a style, e.g. `#normalStyle`.
        public var styleUrl: String?
        /// An inline style.
        public var style: KMLStyle?

        /// Creates a pair.
        /// - Parameters:
        ///   - key: `normal` or `highlight`.
        ///   - styleUrl: Style reference.
        ///   - style: Inline style.
        public init(key: String, styleUrl: String? = nil, style: KMLStyle? = nil) {
            self.key = key
            self.styleUrl = styleUrl
            self.style = style
        }
    }

    /// `id` attribute (needed for shared style maps).
    public var id: String?
    /// The pairs, usually `normal` then `highlight`.
    public var pairs: [Pair]
    /// Preserved children.
    public var unmodeledElements: [KMLElement]

    /// Creates a style map from the normal and highlight style URLs.
    /// - Parameters:
    ///   - id: Identifier.
    ///   - normal: URL of the normal style, e.g. `#pin`.
    ///   - highlight: URL of the highlighted style.
    public init(id: String? = nil, normal: String, highlight: String) {
        self.init(id: id, pairs: [Pair(key: "normal", styleUrl: normal), Pair(key: "highlight", styleUrl: highlight)])
    }

    /// Creates a style map from pairs.
    /// - Parameters:
    ///   - id: Identifier.
    ///   - pairs: The pairs.
    public init(id: String? = nil, pairs: [Pair]) {
        self.id = id
        self.pairs = pairs
        self.unmodeledElements = []
    }

    /// The pair for a key (`normal` or `highlight`).
    /// - Parameter key: The state.
    public func pair(_ key: String) -> Pair? { pairs.first { $0.key == key } }
}

/// A shared style selector of a document: a style or a style map.
public enum KMLStyleSelector: Sendable, Hashable {
    /// A `<Style>`.
    case style(KMLStyle)
    /// A `<StyleMap>`.
    case styleMap(KMLStyleMap)

    /// The selector's `id`.
    public var id: String? {
        switch self {
        case .style(let s): s.id
        case .styleMap(let m): m.id
        }
    }
}
