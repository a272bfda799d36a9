"""Views: pictures and static HTML pages of a bundle or a score, for a person to look at.

- `page_png`: a page as a PNG with its evidence boxes drawn (`gtkit show`);
- `html_pages`: what the HTML views share (templates, the marked folder written atomically, page pictures
  drawn in the worker pool);
- `bundle_html`: one bundle as HTML pages (`gtkit show --html`);
- `score_html`: a score report as HTML pages (`gtkit score --html`).

Views read bundles and scores; they import nothing from the pipelines or the scoring run. The package
re-exports nothing: import from the module that defines a name.
"""
