// Package eol names a text's line endings and writes new text with them,
// so that what an agent copies from a read (shown without CRs or a BOM)
// matches the file, and what it writes keeps the file's own form.
package eol

import (
	"bytes"
	"strings"
)

// Line-ending kinds, as inspect.read reports them.
const (
	LF    = "lf"
	CRLF  = "crlf"
	Mixed = "mixed" // some lines end in CR LF, others in LF alone
)

// BOM is the UTF-8 byte order mark.
const BOM = "\ufeff"

var crlf = []byte("\r\n")

// Classify names the endings of a text with newlines line ends, crlf of
// them preceded by a CR; "" when it has no line end at all.
func Classify(newlines, crlf int64) string {
	switch {
	case newlines == 0:
		return ""
	case crlf == 0:
		return LF
	case crlf == newlines:
		return CRLF
	}
	return Mixed
}

// Of classifies b.
func Of(b []byte) string {
	return Classify(int64(bytes.Count(b, []byte{'\n'})), int64(bytes.Count(b, crlf)))
}

// CountCRLF counts CR LF pairs in b; prevCR says the byte before b was a
// CR, so a pair split across two chunks of a stream counts once.
func CountCRLF(b []byte, prevCR bool) int64 {
	n := int64(bytes.Count(b, crlf))
	if prevCR && len(b) > 0 && b[0] == '\n' {
		n++
	}
	return n
}

// ToLF turns every CR LF into LF.
func ToLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// ToCRLF ends every line of s in CR LF (an existing CR LF is kept).
func ToCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(ToLF(s), "\n", "\r\n")
}

// Like writes new text in the form of the text it replaces: in a CRLF file
// (or where the replaced text itself spans a CR LF) new lines end in CR LF;
// where the replaced text spans a bare LF they end in LF; otherwise the
// text is kept as given.
func Like(text, ending string, replaced []byte) string {
	switch {
	case ending == CRLF || bytes.Contains(replaced, crlf):
		return ToCRLF(text)
	case ending == Mixed && bytes.IndexByte(replaced, '\n') >= 0:
		return ToLF(text)
	}
	return text
}
