/// Whether a PROJ operation is smooth: a function of the horizontal coordinates with derivatives of every order
/// wherever it is defined, so that a polynomial interpolant over a small tile can match it to rounding
/// (`InterpolatedProjection`). Read from the operation's PROJ string (`proj_as_proj_string`, `PJ_PROJ_5`).
///
/// Smooth: projections and their inverses, unit conversions, axis swaps, geocentric conversions (`cart`), Helmert
/// (3, 7 or 15 parameters, but not time-dependent), Molodensky, affine and offset steps, `push`/`pop` of heights.
/// Not smooth, or not a function of the horizontal position alone: anything that reads a grid or a model file
/// (`hgridshift`, `vgridshift`, `xyzgridshift`, `gridshift`, `tinshift`, `deformation`, `defmodel`; `+nadgrids`,
/// `+geoidgrids`, `+grids`, `+file` on any step: bilinear between grid nodes, so only piecewise smooth), and
/// time-dependent steps (a Helmert with rates or an epoch, a unit conversion of time): their result depends on the
/// coordinate epoch, which the interpolant does not see.
enum SmoothOperation {
    /// Steps that read grids or deformation models.
    static let gridSteps: Set<String> = [
        "hgridshift", "vgridshift", "xyzgridshift", "gridshift", "tinshift", "deformation", "defmodel",
    ]
    /// Parameters that name grid or model files, on any step.
    static let fileParameters: Set<String> = ["nadgrids", "geoidgrids", "grids", "file", "hgrids", "vgrids"]
    /// Parameters that make a step depend on the coordinate's time, on any step.
    static let timeParameters: Set<String> = ["t_epoch", "t_obs", "t_in", "t_out", "dt"]
    /// The rates of a 15-parameter (time-dependent) Helmert.
    static let helmertRates: Set<String> = ["dx", "dy", "dz", "drx", "dry", "drz", "ds"]

    /// Whether the operation a PROJ string describes is smooth (see the type's description); false for a string
    /// that is not a single step or a pipeline of steps.
    /// - Parameter definition: `proj_as_proj_string`'s text, on one line.
    static func isSmooth(_ definition: String) -> Bool {
        guard let steps = steps(of: definition), !steps.isEmpty else { return false }
        return steps.allSatisfy(isSmooth(step:))
    }

    /// The steps of a pipeline (or the one step of a plain definition), each as its parameter names and values
    /// (`+inv` and flags with an empty value); nil for an empty definition or a nested pipeline.
    /// - Parameter definition: A PROJ string.
    static func steps(of definition: String) -> [[(key: String, value: String)]]? {
        let words = definition.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
        var steps: [[(key: String, value: String)]] = [[]]
        for word in words {
            guard word.hasPrefix("+") else { return nil }  // PROJ writes every parameter with a '+'
            let body = word.dropFirst()
            let key = String(body.prefix { $0 != "=" })
            let value = body.count > key.count ? String(body.dropFirst(key.count + 1)) : ""
            if key == "step" {
                steps.append([])
            } else {
                steps[steps.count - 1].append((key, value))
            }
        }
        let isPipeline = steps[0].contains { $0.key == "proj" && $0.value == "pipeline" }
        if isPipeline {
            // Global parameters before the first step would apply to every step: none are expected.
            guard steps[0].count == 1 else { return nil }
            steps.removeFirst()
        }
        for step in steps where step.contains(where: { $0.key == "proj" && $0.value == "pipeline" }) { return nil }
        return steps.filter { !$0.isEmpty }
    }

    /// Whether one step is smooth.
    private static func isSmooth(step: [(key: String, value: String)]) -> Bool {
        guard let name = step.first(where: { $0.key == "proj" })?.value else { return false }
        if gridSteps.contains(name) { return false }
        for (key, _) in step {
            if fileParameters.contains(key) || timeParameters.contains(key) { return false }
            if name == "helmert" && helmertRates.contains(key) { return false }
        }
        return true
    }
}
