package inspect

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/bufpool"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/eol"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// ReadRequest is the argument object of inspect.read.
type ReadRequest struct {
	Path      string `json:"path" doc:"file to read, relative to the workspace root; must be text (a binary file is refused: use stat)"`
	StartLine int    `json:"start_line,omitempty" doc:"first line of the window, 1-based; default 1. To read on after a cut window, pass its nextStart"`
	Limit     int    `json:"limit,omitempty" doc:"lines in the window; default: the read.defaultLines setting (2000). The window also stops at maxToolResultChars (20000 characters) and is then marked truncated"`
	MaxBytes  int    `json:"max_bytes,omitempty" doc:"byte ceiling of the returned content, line-number gutter included; can only lower the read.maxBytes setting (default: no ceiling beyond maxToolResultChars)"`
	// StartColumn is the 1-based byte column of the start line to show
	// from (default 1): a line longer than the budget is read in pieces,
	// each window's nextColumn being the next piece's start_column.
	StartColumn int `json:"start_column,omitempty" doc:"1-based byte column of the start line to show from; default 1. A line longer than the budget is read in pieces: pass the previous window's nextColumn"`
}

// ReadData is data of inspect.read; scripts rely on its field names.
type ReadData struct {
	Path        string `json:"path"`
	StartLine   int64  `json:"startLine"`
	EndLine     int64  `json:"endLine"`
	TotalLines  int64  `json:"totalLines"`
	TotalBytes  int64  `json:"totalBytes"`
	Truncated   bool   `json:"truncated"`
	BytesCapped bool   `json:"bytesCapped"`
	SHA256      string `json:"sha256"`
	// CharsCapped: the window was cut to fit maxToolResultChars.
	CharsCapped bool `json:"charsCapped,omitempty"`
	// NextStart is the --start that continues after this window; when the
	// window ends inside a line, NextStart is that line and NextColumn the
	// --start-column of its first byte not shown.
	NextStart int64 `json:"nextStart,omitempty"`
	// StartColumn is the byte column the first line is shown from (when
	// not 1); NextColumn is where a cut line continues.
	StartColumn int64 `json:"startColumn,omitempty"`
	NextColumn  int64 `json:"nextColumn,omitempty"`
	InvalidUTF8 bool  `json:"invalidUtf8,omitempty"`
	// LineEnding is lf, crlf or mixed (of the whole file; none without a
	// line end). CRs before line ends are not shown, so text copied from
	// content matches in an edit, which writes the file's own endings.
	LineEnding string `json:"lineEnding,omitempty"`
	// BOM: the file starts with a UTF-8 byte order mark, not shown in
	// content and kept by edits.
	BOM bool `json:"bom,omitempty"`
	// NoFinalNewline: the last line has no line end (content shows it so).
	NoFinalNewline bool   `json:"noFinalNewline,omitempty"`
	Content        string `json:"content"`

	partialLine int64 // the last line shown was cut (0: none)
}

// Read returns a `cat -n` window of a text file with the SHA-256 of the
// whole file. The file is streamed once; memory is bounded by the window.
func Read(ctx context.Context, ws *workspace.Workspace, req *ReadRequest) (envelope.Envelope, error) {
	if req.Path == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "read needs a path: `aw inspect read PATH` (relative to the workspace root)").With("field", "path")
	}
	opts, err := readOptions(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	jp, err := ws.Jail.Resolve(req.Path, workspace.Read)
	if err != nil {
		return envelope.Envelope{}, err
	}
	f, fi, err := openRegular(jp, "read")
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer f.Close()
	w := newWindow(opts)
	// Room for what a window of this file can keep, so a small file's
	// lines are copied once.
	buf := bufpool.Get(int(min(fi.Size(), int64(w.budget))))
	w.buf = *buf
	defer func() { *buf = w.buf; bufpool.Put(buf) }()
	sum, err := streamFile(f, fi.Size(), true, w.visit)
	if _, ok := err.(errBinary); ok {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
			"%s is a binary file (it has a NUL byte in its first 8 KiB), so it has no lines to show; `aw inspect stat %s` gives its size and sha256", display(jp.Rel), display(jp.Rel)).With("path", display(jp.Rel)).With("reason", "binary")
	}
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot read %s: %v; check its permissions", display(jp.Rel), err).With("path", display(jp.Rel))
	}
	d := w.render(opts, sum)
	d.Path = display(jp.Rel)
	env := envelope.New("", readSummary(d, opts), d)
	env.Retention.Importance = envelope.Low
	env.Fact("%s sha256 %s (%d lines, %d bytes%s)", d.Path, d.SHA256, d.TotalLines, d.TotalBytes, form(d))
	if d.Truncated {
		env.Fact("%s window truncated at line %d: %s", d.Path, d.EndLine, continuation(d))
	}
	env.Omit("data.content")
	return env, nil
}

// readOpts are the effective window and ceilings.
type readOpts struct {
	start    int64
	limit    int64
	maxBytes int   // 0: no byte ceiling
	maxChars int   // maxToolResultChars: the envelope's inline bound
	column   int64 // 1-based byte column of the start line
}

func readOptions(ws *workspace.Workspace, req *ReadRequest) (readOpts, error) {
	o := readOpts{start: 1, limit: int64(ws.Settings.Read.DefaultLines), maxBytes: ws.Settings.Read.MaxBytes, maxChars: ws.Settings.MaxToolResultChars, column: 1}
	switch {
	case req.StartLine < 0:
		return o, envelope.Errorf(envelope.InvalidInput, "--start %d is negative: lines count from 1", req.StartLine).With("field", "start_line")
	case req.Limit < 0:
		return o, envelope.Errorf(envelope.InvalidInput, "--limit %d is negative: pass a number of lines (default %d)", req.Limit, o.limit).With("field", "limit")
	case req.StartColumn < 0:
		return o, envelope.Errorf(envelope.InvalidInput, "--start-column %d is negative: columns count from 1 (a window's nextColumn continues a cut line)", req.StartColumn).With("field", "start_column")
	case req.MaxBytes < 0:
		return o, envelope.Errorf(envelope.InvalidInput, "--max-bytes %d is negative: pass a byte ceiling, or omit it", req.MaxBytes).With("field", "max_bytes")
	}
	if req.StartLine > 0 {
		o.start = int64(req.StartLine)
	}
	if req.Limit > 0 {
		o.limit = int64(req.Limit)
	}
	if req.StartColumn > 0 {
		o.column = int64(req.StartColumn)
	}
	// The caller may only lower the configured ceiling.
	if req.MaxBytes > 0 && (o.maxBytes == 0 || req.MaxBytes < o.maxBytes) {
		o.maxBytes = req.MaxBytes
	}
	return o, nil
}

// openRegular opens a jailed path that must be a regular file.
func openRegular(jp workspace.Path, verb string) (*os.File, os.FileInfo, error) {
	fi, err := statPath(jp, "")
	if err != nil {
		return nil, nil, err
	}
	rel := display(jp.Rel)
	if fi.IsDir() {
		return nil, nil, envelope.Errorf(envelope.InvalidInput, "%s is a directory; list it with `aw inspect list %s`", rel, rel).With("path", rel).With("reason", "directory")
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, envelope.Errorf(envelope.InvalidInput, "%s is not a regular file (%s), so aw will not %s it; `aw inspect stat %s` describes it", rel, fileType(fi.Mode()), verb, rel).With("path", rel)
	}
	f, err := openFile(jp.Abs)
	if err != nil {
		return nil, nil, envelope.Errorf(envelope.Internal, "cannot open %s: %v; check its permissions", rel, err).With("path", rel)
	}
	return f, fi, nil
}

// window picks the lines of the read window out of the stream, keeping
// no more bytes than the envelope could ever show.
type window struct {
	start, end int64 // inclusive line numbers
	budget     int   // formatted bytes worth keeping
	used       int
	cur        int64 // number of the line the next byte belongs to
	lines      []wline
	buf        []byte
	done       bool
	full       bool  // stopped at the budget with more of the window left
	skip       int64 // bytes of the start line still to skip (start_column)
	align      bool  // after skipping, drop continuation bytes of a cut rune
	bomChecked bool
}

type wline struct {
	n         int64
	off, kept int
	full      int64 // raw length without the newline
	last      byte  // last raw byte before the newline
	nl        bool  // terminated by a newline
	skipped   bool  // shown from start_column, not from the line's start
}

// gutterMin is the least a line adds beyond its text: "%6d\t" and "\n",
// less a CR that may be dropped.
const gutterMin = 7

func newWindow(o readOpts) *window {
	budget := 4*o.maxChars + 8
	if o.maxBytes > 0 && o.maxBytes+8 < budget {
		budget = o.maxBytes + 8
	}
	end := o.start + o.limit - 1
	if end < o.start { // overflow
		end = 1<<62 - 1
	}
	return &window{start: o.start, end: end, budget: budget, cur: 1, skip: o.column - 1, align: o.column > 1}
}

func (w *window) visit(b []byte) {
	for len(b) > 0 && !w.done {
		if w.cur < w.start {
			need := w.start - w.cur
			if c := int64(bytes.Count(b, []byte{'\n'})); c < need {
				w.cur += c
				return
			}
			for ; need > 0; need-- {
				j := bytes.IndexByte(b, '\n')
				b = b[j+1:]
				w.cur++
			}
			continue
		}
		if w.cur > w.end {
			w.done = true
			return
		}
		if len(w.lines) == 0 || w.lines[len(w.lines)-1].n != w.cur {
			if w.used >= w.budget {
				w.done, w.full = true, true
				return
			}
			if w.lines == nil {
				// Room for the window's lines in this chunk, counted once.
				w.lines = make([]wline, 0, min(w.end-w.cur+1, int64(bytes.Count(b, []byte{'\n'}))+1))
			}
			w.lines = append(w.lines, wline{n: w.cur, off: len(w.buf)})
			w.used += gutterMin
		}
		l := &w.lines[len(w.lines)-1]
		j := bytes.IndexByte(b, '\n')
		seg := b
		if j >= 0 {
			seg = b[:j]
		}
		if l.n == w.start && (w.skip > 0 || w.align) {
			seg = w.skipColumns(l, seg)
		}
		if len(seg) > 0 {
			l.last = seg[len(seg)-1]
			l.full += int64(len(seg))
			if keep := min(len(seg), w.budget-w.used); keep > 0 {
				w.buf = append(w.buf, seg[:keep]...)
				w.used += keep
				l.kept += keep
			}
		}
		if j < 0 {
			return
		}
		l.nl = true
		b = b[j+1:]
		w.cur++
	}
}

// skipColumns drops the start line's bytes before start_column (columns
// count the line as shown: after a byte order mark, without a cut rune's
// continuation bytes) and returns what is left of seg.
func (w *window) skipColumns(l *wline, seg []byte) []byte {
	if l.n == 1 && !w.bomChecked {
		w.bomChecked = true
		if bytes.HasPrefix(seg, []byte(eol.BOM)) {
			w.skip += int64(len(eol.BOM))
		}
	}
	if len(seg) > 0 {
		l.last = seg[len(seg)-1]
	}
	n := min(int64(len(seg)), w.skip)
	w.skip -= n
	seg = seg[n:]
	if w.skip == 0 && w.align {
		for len(seg) > 0 && !utf8.RuneStart(seg[0]) {
			seg = seg[1:]
		}
		if len(seg) > 0 {
			w.align = false
		}
	}
	l.skipped = true
	return seg
}

// render applies the byte ceiling and the envelope bound to the kept lines.
func (w *window) render(o readOpts, s fileSummary) *ReadData {
	d := &ReadData{StartLine: o.start, EndLine: o.start - 1, TotalLines: s.Lines, TotalBytes: s.Size, SHA256: s.SHA256}
	// line is reused: out keeps copies, sized for the kept text and
	// gutters (a Builder: the content string is not copied again).
	var out strings.Builder
	out.Grow(len(w.buf) + len(w.lines)*(gutterMin+1))
	var line []byte
	// An ASCII window (most source) is valid and has a rune per byte:
	// checked once instead of per line.
	ascii := allASCII(w.buf)
	runes := 0
	endPartial := false
	shown := 0 // bytes of the cut last line's text shown
	for i, l := range w.lines {
		text := w.buf[l.off : l.off+l.kept]
		partial := int64(l.kept) < l.full
		if !partial && l.nl && l.last == '\r' && len(text) > 0 {
			text = text[:len(text)-1]
		}
		if l.n == 1 && s.BOM && !l.skipped {
			text = bytes.TrimPrefix(text, []byte(eol.BOM))
		}
		if partial {
			text = trimPartialRune(text)
		}
		line = appendGutter(line[:0], l.n)
		if ascii || utf8.Valid(text) {
			line = append(line, text...)
		} else {
			line = append(line, bytes.ToValidUTF8(text, []byte("\uFFFD"))...)
			d.InvalidUTF8 = true
		}
		if l.nl && !partial {
			line = append(line, '\n')
		}
		n := len(line)
		if !ascii {
			n = utf8.RuneCount(line)
		}
		roomBytes := len(line)
		if o.maxBytes > 0 {
			roomBytes = o.maxBytes - out.Len()
		}
		if len(line) <= roomBytes && runes+n <= o.maxChars && !partial {
			out.Write(line)
			runes += n
			d.EndLine = l.n
			continue
		}
		if len(line) > roomBytes {
			cut := trimPartialRune(line[:roomBytes])
			if runes+utf8.RuneCount(cut) <= o.maxChars {
				d.BytesCapped = true
				if len(cut) > 0 {
					out.Write(cut)
					d.EndLine, endPartial = l.n, true
					shown = len(cut) - gutterLen(l.n)
				}
				break
			}
		}
		// The envelope bound: whole lines while they fit; a first line
		// that alone is too long is cut so something comes back.
		d.CharsCapped = true
		if i == 0 || out.Len() == 0 {
			cut := cutRunes(line, o.maxChars-runes)
			if o.maxBytes > 0 && len(cut) > o.maxBytes-out.Len() {
				cut = trimPartialRune(cut[:o.maxBytes-out.Len()])
			}
			out.Write(cut)
			d.EndLine, endPartial = l.n, len(cut) < len(line) || partial
			shown = len(cut) - gutterLen(l.n)
		}
		break
	}
	d.Content = out.String()
	d.NoFinalNewline = s.Size > 0 && !s.EndsInNL
	newlines := s.Lines
	if d.NoFinalNewline {
		newlines-- // Lines counts the unterminated last line too
	}
	d.LineEnding, d.BOM = eol.Classify(newlines, s.CRLF), s.BOM
	if o.column > 1 {
		d.StartColumn = o.column
	}
	if d.EndLine >= d.StartLine && (d.EndLine < d.TotalLines || endPartial) {
		d.Truncated = true
		switch {
		case endPartial:
			// The same line, from its first byte not shown.
			col := int64(1)
			if d.EndLine == o.start {
				col = o.column
			}
			d.NextStart, d.NextColumn = d.EndLine, col+int64(max(shown, 0))
		case d.EndLine < d.TotalLines:
			d.NextStart = d.EndLine + 1
		}
	}
	if endPartial {
		d.partialLine = d.EndLine
	}
	return d
}

// appendGutter appends fmt's "%6d\t" for line number n, without fmt: a
// window has up to thousands of lines.
func appendGutter(b []byte, n int64) []byte {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], n, 10)
	for i := len(digits); i < 6; i++ {
		b = append(b, ' ')
	}
	b = append(b, digits...)
	return append(b, '\t')
}

// gutterLen is the length of line n's gutter.
func gutterLen(n int64) int { return max(len(strconv.FormatInt(n, 10)), 6) + 1 }

// cutRunes keeps the first n characters of b.
func cutRunes(b []byte, n int) []byte {
	if n <= 0 {
		return nil
	}
	i := 0
	for c := 0; c < n && i < len(b); c++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return b[:i]
}

func readSummary(d *ReadData, o readOpts) string {
	if d.TotalLines == 0 {
		return fmt.Sprintf("%s is empty (0 lines, 0 bytes); sha256 %s", d.Path, d.SHA256)
	}
	if d.EndLine < d.StartLine {
		if d.StartLine > d.TotalLines {
			return fmt.Sprintf("%s has %d lines: start line %d is past the end, so nothing is shown; read from --start 1 to %d", d.Path, d.TotalLines, d.StartLine, d.TotalLines)
		}
		return fmt.Sprintf("%s: nothing of line %d fits in --max-bytes %d; raise --max-bytes", d.Path, d.StartLine, o.maxBytes)
	}
	s := fmt.Sprintf("Read %s lines %d-%d of %d (%d bytes, sha256 %s)", d.Path, d.StartLine, d.EndLine, d.TotalLines, d.TotalBytes, d.SHA256)
	if d.InvalidUTF8 {
		s += "; invalid UTF-8 shown as U+FFFD"
	}
	if d.partialLine > 0 {
		switch {
		case d.BytesCapped:
			s += fmt.Sprintf("; line %d was cut at the byte ceiling (%d bytes)", d.partialLine, o.maxBytes)
		default:
			s += fmt.Sprintf("; line %d is too long to show whole (maxToolResultChars %d)", d.partialLine, o.maxChars)
		}
	} else if d.BytesCapped {
		s += fmt.Sprintf("; the byte ceiling (%d bytes) stopped the window", o.maxBytes)
	} else if d.CharsCapped {
		s += fmt.Sprintf("; the window was cut to fit maxToolResultChars (%d)", o.maxChars)
	}
	if d.NextStart > 0 {
		s += "; " + continuation(d)
	}
	return s
}

// continuation is the call that reads on after a truncated window.
func continuation(d *ReadData) string {
	switch {
	case d.NextColumn > 0:
		return fmt.Sprintf("continue line %d with --start %d --start-column %d", d.NextStart, d.NextStart, d.NextColumn)
	case d.NextStart > 0:
		return "continue with --start " + strconv.FormatInt(d.NextStart, 10)
	}
	return "the window ends inside the file's last line"
}

// form names what content does not show of a file's bytes: CR LF or mixed
// line ends, a byte order mark, a missing final newline.
func form(d *ReadData) string {
	var b strings.Builder
	if d.LineEnding == eol.CRLF || d.LineEnding == eol.Mixed {
		b.WriteString(", " + d.LineEnding + " line endings")
	}
	if d.BOM {
		b.WriteString(", UTF-8 BOM")
	}
	if d.NoFinalNewline {
		b.WriteString(", no final newline")
	}
	return b.String()
}

// allASCII says whether b has no byte above 0x7F, eight bytes at a time.
func allASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
