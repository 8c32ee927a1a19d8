// Placeholder: KML model (issue 3).
