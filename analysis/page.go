package analysis

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
)

// pageFont is the CSS that embeds the plots' font in a page, or none when the caller asked for
// none (tests compare pages without 400 KB of font).
func pageFont(noEmbed bool) (template.CSS, error) {
	if noEmbed {
		return "", nil
	}
	return embeddedFontCSS()
}

// writePage renders t with data whole before writing any of it, so a template error leaves w
// untouched; what names the page in that error.
func writePage(w io.Writer, t *template.Template, data any, what string) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return fmt.Errorf("render %s: %w", what, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
