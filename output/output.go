// Package output renders an envelope: as one JSON document for programs,
// or as a summary line and tables (tablewriter) for a human on a terminal.
// It decides nothing about the result and never changes it.
package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

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
	// Color marks diffs (+ green, - red, @@ cyan) and errors (red) with
	// ANSI colors, added after every agent string was made visible.
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
	if view(w, env, f) {
		return artifacts(w, env, width)
	}
	data, err := ordered(env.Data)
	if err != nil || data == nil {
		return err
	}
	if err := generic(w, data, f); err != nil {
		return err
	}
	return artifacts(w, env, width)
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
		if err := list(w, l.value.([]any), f.Width); err != nil {
			return err
		}
	}
	for _, t := range texts {
		block(w, t[0]+":", t[1], f)
	}
	return nil
}

func artifacts(w io.Writer, env envelope.Envelope, width int) error {
	for _, a := range env.Artifacts {
		fmt.Fprintln(w, wrap(fmt.Sprintf("artifact %s (%d bytes): %s", visible.Line(a.Path), a.Bytes, visible.Line(a.Description)), width))
	}
	return nil
}

// list renders an array: objects as a table with their keys as columns,
// anything else one per line.
func list(w io.Writer, items []any, width int) error {
	var cols []string
	seen := map[string]bool{}
	var rows []map[string]any
	for _, it := range items {
		m, ok := it.([]kv)
		if !ok {
			fmt.Fprintln(w, clip(visible.Line(cell(it)), width))
			continue
		}
		row := map[string]any{}
		for _, f := range m {
			row[f.key] = f.value
			if !seen[f.key] {
				seen[f.key] = true
				cols = append(cols, f.key)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil
	}
	cells := make([][]string, 0, len(rows)+1)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = visible.Line(c)
	}
	cells = append(cells, header)
	for _, r := range rows {
		line := make([]string, len(cols))
		for i, c := range cols {
			v := r[c]
			if s, ok := v.(string); ok {
				if t, ok := timestamp(s); ok {
					v = relative(t)
				}
			}
			line[i] = visible.Line(cell(v))
		}
		cells = append(cells, line)
	}
	fitColumns(cells, width)
	t := newTable(w)
	t.SetHeader(cells[0])
	t.AppendBulk(cells[1:])
	t.Render()
	return nil
}

// newTable is tablewriter's classic API (v0.0.5): its package init is a
// fraction of v1's, and every aw call pays package init (at most 0.5 ms each).
func newTable(w io.Writer) *tablewriter.Table {
	t := tablewriter.NewWriter(w)
	t.SetAutoWrapText(false)
	t.SetAutoFormatHeaders(false)
	return t
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
