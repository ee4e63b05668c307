// Package output renders an envelope: as one JSON document for programs,
// or as a summary line and a view for a human on a terminal. It decides
// nothing about the result and never changes it: JSON is the same bytes
// whatever the terminal, the color or the width.
//
// The human views, and why:
//   - Every string from the agent's side (paths, titles, argv, diffs,
//     command output, search lines) goes through output/visible before
//     it is cut, wrapped or colored; colors are added around text already
//     made visible, so nothing an agent wrote can start or end one.
//   - Nothing is wider than the terminal (120 columns off one): list
//     cells are cut with "…", records and text blocks wrap (a record is
//     what a human decides on: its values are never cut), tabs are
//     expanded before widths are measured.
//   - Records are one field per line, "label:  value", numbers beside
//     their labels; nested objects become dotted labels (sandbox.network);
//     times are local to the second with how long ago ("(3m ago)"), in
//     lists relative alone.
//   - Lists are borderless columns, as ls and git print them: ids are
//     never cut (they are copied into the next command), numbers are
//     right-aligned, and when the columns cannot all stay legible the
//     hashes and then the rightmost columns are left out and named.
//   - Operations whose data has a shape of its own get a view (views.go):
//     overview draws its files as tree(1), list is size and path, read the
//     numbered window alone, search "path:line: text" with the match
//     painted as ripgrep does, vcs log one line per commit, vcs status as
//     git status -s, tasks show the board and an items table whose AFTER
//     column (the dependencies) names rows by #, approval show the record
//     then the diff (colored) or the command, command run/status/output
//     the job and the tails of its output as text. A view that cannot
//     read its data falls back to the generic rendering, never to an
//     error.
//   - Search results carry the pattern but not how it was read: the
//     painted match is the reading (literal first, then regular
//     expression, each with and without case) whose first match starts at
//     the column the engine reported; none agrees, nothing is painted.
//   - A command run on a terminal streams its output as it runs (the
//     commands package tails the job's logs), and the view then leaves the
//     tails out instead of printing them twice.
package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/output/visible"
)

// Format says how to render.
type Format struct {
	Table  bool // a human table instead of JSON
	Pretty bool // indent JSON
	// Width is the terminal's width in columns: tables are cut to fit it
	// and text is wrapped (0: OffTerminalWidth).
	Width int
	// Color marks diffs (+ green, - red, @@ cyan), errors, statuses, ids,
	// directories and search matches with ANSI colors, added after every
	// agent string was made visible.
	Color bool
	// Streamed says the command's output was already shown on the
	// terminal as it ran: a job's view leaves out its tails.
	Streamed bool
}

// Render writes env to w.
func Render(w io.Writer, env envelope.Envelope, f Format) error {
	if !f.Table {
		return JSON(w, env, f.Pretty)
	}
	if f.Width <= 0 {
		f.Width = OffTerminalWidth
	}
	return table(w, env, f)
}

// JSON writes env as one JSON document and a newline. HTML escaping is off:
// envelopes carry code, and "<" must stay "<" for a program reading it.
// Characters a terminal would obey or hide are \u-escaped (visible.JSON), so
// the document decodes to the same envelope and prints harmlessly.
func JSON(w io.Writer, env envelope.Envelope, pretty bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(env); err != nil {
		return err
	}
	_, err := w.Write(visible.JSON(buf.Bytes()))
	return err
}

// table is the human view. Every string in it went through visible.Line (cells,
// keys, the summary) or visible.Block (multi-line text: diffs, reviews, output).
func table(w io.Writer, env envelope.Envelope, f Format) error {
	width := f.Width
	fmt.Fprintln(w, wrap(visible.Line(env.Summary), width))
	if env.Error != nil {
		fmt.Fprintln(w, paint(f.Color, red, wrap(fmt.Sprintf("error %s: %s", visible.Line(string(env.Error.Code)), visible.Line(env.Error.Message)), width)))
	}
	var body bytes.Buffer
	if !view(&body, env, f) {
		data, err := ordered(env.Data)
		if err != nil || data == nil {
			return err
		}
		if err := generic(&body, data, f); err != nil {
			return err
		}
	}
	if _, err := w.Write(body.Bytes()); err != nil {
		return err
	}
	return artifacts(w, env, body.Bytes(), width)
}

// generic renders data no view of its own reads: its scalar fields as a
// record (a nested object's fields under dotted names, times human),
// then each list as a table, then each multi-line text as a block.
func generic(w io.Writer, data []kv, f Format) error {
	var fields []field
	var lists []kv
	var texts [][2]string
	var walk func(prefix string, obj []kv)
	walk = func(prefix string, obj []kv) {
		for _, e := range obj {
			key := prefix + e.key
			switch v := e.value.(type) {
			case []kv:
				walk(key+".", v)
			case []any:
				if len(v) > 0 {
					lists = append(lists, kv{key, v})
				}
			case string:
				if strings.Contains(v, "\n") {
					texts = append(texts, [2]string{key, v})
				} else if t, ok := timestamp(v); ok {
					fields = append(fields, field{label: key, value: when(t)})
				} else {
					fields = append(fields, field{label: key, value: v})
				}
			default:
				fields = append(fields, field{label: key, value: or(cell(v), "-")})
			}
		}
	}
	walk("", data)
	record(w, fields, f)
	for _, l := range lists {
		fmt.Fprintf(w, "\n%s:\n", visible.Line(l.key))
		if err := list(w, l.value.([]any), f); err != nil {
			return err
		}
	}
	for _, t := range texts {
		block(w, t[0]+":", t[1], f)
	}
	return nil
}

// artifacts lists the files the envelope points to, but for those the
// body above already named (a job's logs): one mention is enough.
func artifacts(w io.Writer, env envelope.Envelope, body []byte, width int) error {
	for _, a := range env.Artifacts {
		if bytes.Contains(body, []byte(visible.Line(a.Path))) {
			continue
		}
		fmt.Fprintln(w, wrap(fmt.Sprintf("artifact %s (%d bytes): %s", visible.Line(a.Path), a.Bytes, visible.Line(a.Description)), width))
	}
	return nil
}

// list renders an array: objects as columns named by their keys, anything
// else one per line. Ids are never cut (a human copies them into the next
// command); when the columns cannot all keep a legible width, hashes go
// first, then the rightmost columns, and a last line names what was left
// out.
func list(w io.Writer, items []any, f Format) error {
	var cols []string
	seen := map[string]bool{}
	var rows []map[string]any
	for _, it := range items {
		m, ok := it.([]kv)
		if !ok {
			fmt.Fprintln(w, clip(visible.Line(cell(it)), f.Width))
			continue
		}
		row := map[string]any{}
		for _, e := range m {
			row[e.key] = e.value
			if !seen[e.key] {
				seen[e.key] = true
				cols = append(cols, e.key)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	cells := make([][]string, len(rows))
	numeric := make([]bool, len(cols))
	for i := range numeric {
		numeric[i] = true
	}
	for r, row := range rows {
		cells[r] = make([]string, len(cols))
		for i, c := range cols {
			v := row[c]
			if s, ok := v.(string); ok {
				if t, ok := timestamp(s); ok {
					v = relative(t)
				}
			}
			if _, ok := v.(json.Number); !ok && v != nil {
				numeric[i] = false
			}
			cells[r][i] = cell(v)
		}
	}
	keep := keptColumns(cols, cells, f.Width)
	var shown []column
	var left []string
	for i, c := range cols {
		if keep[i] {
			shown = append(shown, column{header: c, flex: !isID(c), keep: isID(c), right: numeric[i]})
		} else {
			left = append(left, c)
		}
	}
	out := make([][]string, len(cells))
	for r := range cells {
		for i := range cols {
			if keep[i] {
				out[r] = append(out[r], cells[r][i])
			}
		}
	}
	grid(w, shown, out, nil, f)
	if len(left) > 0 {
		fmt.Fprintln(w, wrap(visible.Line("(not shown for the width: "+strings.Join(left, ", ")+"; -o json has every field)"), f.Width))
	}
	return nil
}

// isID says a column holds ids: "id", "jobId", "transactionId".
func isID(key string) bool {
	return key == "id" || strings.HasSuffix(key, "Id") || strings.HasSuffix(key, "ID")
}

// keptColumns chooses the columns that fit width when every column but
// an id keeps min(its width, 10) columns: hashes are left out first, then
// columns from the right; ids and the first column stay.
func keptColumns(cols []string, cells [][]string, width int) []bool {
	need := make([]int, len(cols))
	for i, c := range cols {
		need[i] = runewidth.StringWidth(c)
		for _, r := range cells {
			need[i] = max(need[i], runewidth.StringWidth(visible.Line(r[i])))
		}
		if !isID(c) {
			need[i] = min(need[i], 10)
		}
	}
	keep := make([]bool, len(cols))
	total := -2
	for i := range cols {
		keep[i] = true
		total += need[i] + 2
	}
	hash := func(c string) bool {
		c = strings.ToLower(c)
		return strings.Contains(c, "sha256") || strings.Contains(c, "hash")
	}
	for _, pass := range []func(i int) bool{
		func(i int) bool { return hash(cols[i]) },
		func(i int) bool { return !isID(cols[i]) },
	} {
		for i := len(cols) - 1; i > 0 && total > width; i-- {
			if keep[i] && pass(i) {
				keep[i] = false
				total -= need[i] + 2
			}
		}
	}
	return keep
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []kv:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = f.key + "=" + cell(f.value)
		}
		return strings.Join(parts, " ")
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = cell(e)
		}
		return strings.Join(parts, ", ")
	case json.Number:
		return x.String()
	default:
		return fmt.Sprint(x)
	}
}

// kv keeps an object's keys in the order the engine declared them.
type kv struct {
	key   string
	value any
}

// ordered turns data into nested []kv / []any / scalars, keeping key order.
func ordered(data any) ([]kv, error) {
	if data == nil {
		return nil, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case []kv:
		return x, nil
	case []any:
		return []kv{{key: "items", value: x}}, nil
	default:
		return []kv{{key: "value", value: x}}, nil
	}
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var obj []kv
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, kv{key: k.(string), value: v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	return tok, nil
}
