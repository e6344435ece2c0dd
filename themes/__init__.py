"""mfact themes: .tcss stylesheets and Textual themes."""
