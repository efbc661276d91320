//! Text to HTML for the docs page: descriptions in the OpenAPI document (written as
//! doc comments) rendered as CommonMark with pulldown-cmark, and plain text escaped.
//!
//! Descriptions are rendered safely whatever they hold: raw HTML (blocks and inline
//! tags) is shown as escaped text, never passed through; images are replaced by their
//! alt text, so the page loads nothing from elsewhere; a link keeps its target only
//! when that is relative, an anchor, or `http:`, `https:` or `mailto:`, otherwise
//! (`javascript:`, `data:` ...) only its text is shown.

use pulldown_cmark::{html, Event, Parser, Tag, TagEnd};

/// HTML-escapes text, quotes included (safe in attribute values too).
pub(super) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A description as block HTML: paragraphs, lists, `code`, **strong**, *emphasis*,
/// links. Empty text gives an empty string.
pub(super) fn markdown(text: &str) -> String {
    let mut out = String::new();
    html::push_html(&mut out, safe_events(text));
    out.truncate(out.trim_end().len());
    out
}

/// A short description (a table cell) as HTML: like [`markdown`], without the `<p>`
/// around it when it is a single paragraph.
pub(super) fn markdown_inline(text: &str) -> String {
    let mut events: Vec<Event> = safe_events(text).collect();
    let single_paragraph = matches!(events.first(), Some(Event::Start(Tag::Paragraph)))
        && matches!(events.last(), Some(Event::End(TagEnd::Paragraph)))
        && events
            .iter()
            .filter(|e| matches!(e, Event::Start(Tag::Paragraph)))
            .count()
            == 1;
    if single_paragraph {
        events.pop();
        events.remove(0);
    }
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    out.truncate(out.trim_end().len());
    out
}

/// The CommonMark events of `text`, made safe (see the module doc).
fn safe_events(text: &str) -> impl Iterator<Item = Event<'_>> {
    // For each open link or image: whether its tags were dropped.
    let mut dropped: Vec<bool> = Vec::new();
    Parser::new(text).filter_map(move |event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::HtmlBlock) => Some(Event::Start(Tag::Paragraph)),
        Event::End(TagEnd::HtmlBlock) => Some(Event::End(TagEnd::Paragraph)),
        Event::Start(Tag::Image { .. }) => {
            dropped.push(true);
            None
        }
        Event::Start(Tag::Link { ref dest_url, .. }) => {
            let safe = safe_url(dest_url);
            dropped.push(!safe);
            safe.then_some(event)
        }
        Event::End(TagEnd::Link | TagEnd::Image) => {
            let drop = dropped.pop().unwrap_or(true);
            (!drop).then_some(event)
        }
        other => Some(other),
    })
}

/// Whether a link target may be kept: relative, an anchor, or an allowed scheme.
fn safe_url(url: &str) -> bool {
    let url = url.trim();
    let scheme_end = url.find([':', '/', '?', '#']);
    match scheme_end {
        Some(i) if url[i..].starts_with(':') => {
            let scheme = url[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_and_marks_code_and_strong() {
        assert_eq!(
            markdown("**Lists** take `page` <b>\n\nsecond"),
            "<p><strong>Lists</strong> take <code>page</code> &lt;b&gt;</p>\n<p>second</p>"
        );
        assert_eq!(
            markdown_inline("a `<x>` b ` c"),
            "a <code>&lt;x&gt;</code> b ` c"
        );
        assert_eq!(markdown(""), "");
        assert_eq!(markdown_inline(""), "");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        assert_eq!(
            markdown("<script>alert(1)</script>\n\nafter"),
            "<p>&lt;script&gt;alert(1)&lt;/script&gt;\n</p>\n<p>after</p>"
        );
        assert_eq!(
            markdown_inline("a <img src=x onerror=alert(1)> b"),
            "a &lt;img src=x onerror=alert(1)&gt; b"
        );
        assert_eq!(
            markdown_inline("<!-- note --> & more"),
            "&lt;!-- note --&gt; &amp; more"
        );
    }

    #[test]
    fn links_keep_safe_targets_and_images_become_text() {
        assert_eq!(
            markdown_inline("see [the list](#schema-Chapter) or [docs](https://example.org/x)"),
            "see <a href=\"#schema-Chapter\">the list</a> or \
             <a href=\"https://example.org/x\">docs</a>"
        );
        assert_eq!(
            markdown_inline("[click](javascript:alert(1)) [x](JavaScript:void(0))"),
            "click x"
        );
        assert_eq!(
            markdown_inline("![a logo](https://example.org/logo.png)"),
            "a logo"
        );
    }

    #[test]
    fn several_paragraphs_stay_blocks_in_a_cell() {
        assert_eq!(markdown_inline("one\n\ntwo"), "<p>one</p>\n<p>two</p>");
        assert_eq!(
            markdown_inline("- a\n- b"),
            "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
        );
    }
}
