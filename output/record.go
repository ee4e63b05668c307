package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/olekukonko/tablewriter"

	"github.com/agentic-workspace/aw/output/visible"
)

// field is one line of a record: a label and its value, as the engine
// wrote them (record makes both visible), and the color of the value.
type field struct {
	label, value, color string
	// lines: the value's own line breaks are kept (indented under it,
	// so no line of it can pass for another label); otherwise a newline
	// is shown as \n.
	lines bool
}

// record writes fields one per line, "label:  value", the labels aligned
// so that every value stands beside its label. A long value wraps under
// itself instead of being cut: a record is what a human decides on.
// Empty values are left out.
func record(w io.Writer, fields []field, f Format) {
	lw := 0
	for _, fl := range fields {
		if fl.value != "" {
			lw = max(lw, runewidth.StringWidth(visible.Line(fl.label))+1)
		}
	}
	lw = min(lw, f.Width/3)
	indent := strings.Repeat(" ", lw+2)
	for _, fl := range fields {
		if fl.value == "" {
			continue
		}
		label := clip(visible.Line(fl.label)+":", lw)
		parts := []string{fl.value}
		if fl.lines {
			parts = strings.Split(strings.TrimRight(fl.value, "\n"), "\n")
		}
		var lines []string
		for _, p := range parts {
			lines = append(lines, strings.Split(wrap(visible.Line(p), max(f.Width-lw-2, 10)), "\n")...)
		}
		for i, l := range lines {
			lines[i] = paint(f.Color, fl.color, l)
		}
		pad := strings.Repeat(" ", max(lw-runewidth.StringWidth(label), 0)+2)
		fmt.Fprintln(w, label+pad+strings.Join(lines, "\n"+indent))
	}
}

// block writes a titled multi-line text (a diff, a review, a command's
// output): made visible, tabs expanded, wrapped to the width, diffs
// colored. An empty text writes nothing.
func block(w io.Writer, title, text string, f Format) {
	if text == "" {
		return
	}
	fmt.Fprintf(w, "\n%s\n%s", paint(f.Color, bold, clip(visible.Line(title), f.Width)), colorDiff(f.Color, wrapBlock(visible.Block(text), f.Width)))
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
}

// when is a timestamp for a record: local time to the second, and how
// long ago (or how soon) it is.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format(time.DateTime) + " (" + relative(t) + ")"
}

// relative is a time as a human reads it in a list: "3m ago", "in 23h".
func relative(t time.Time) string {
	d := time.Since(t)
	suffix := func(s string) string { return s + " ago" }
	if d < 0 {
		d = -d
		suffix = func(s string) string { return "in " + s }
	}
	switch {
	case d < time.Second:
		return "now"
	case d < time.Minute:
		return suffix(fmt.Sprintf("%ds", int(d.Seconds())))
	case d < time.Hour:
		return suffix(fmt.Sprintf("%dm", int(d.Minutes())))
	case d < 48*time.Hour:
		return suffix(fmt.Sprintf("%dh", int(d.Hours())))
	case d < 60*24*time.Hour:
		return suffix(fmt.Sprintf("%dd", int(d.Hours()/24)))
	}
	return t.Local().Format(time.DateOnly)
}

// timestamp reads an RFC 3339 time the engine wrote ("2026-12-01T16:29:26.78Z").
func timestamp(s string) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[10] != 'T' {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// bytesize is a byte count as ls -h prints it.
func bytesize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f%c", float64(n)/float64(div), "KMGTPE"[exp])
}

// column is one column of a grid: its header, and whether it gives way
// first when the grid is wider than the screen (the free text of a row).
type column struct {
	header string
	flex   bool
	right  bool // numbers: right-aligned
	// wrap: the last column's text wraps under itself instead of being
	// cut (an item's text is what a human reads the table for).
	wrap bool
	// keep: ids, cut only when nothing else can give way (a human copies
	// them into the next command).
	keep bool
}

// grid writes rows as columns without borders, as ls and git print them,
// two spaces apart, cut to the width: flexible columns give way first,
// then the widest of the others. Cells are made visible here; colors[i][j]
// paints a cell after it was cut.
func grid(w io.Writer, cols []column, rows [][]string, colors [][]string, f Format) {
	widths := make([]int, len(cols))
	cells := make([][]string, len(rows))
	for i, c := range cols {
		widths[i] = runewidth.StringWidth(c.header)
	}
	for r, row := range rows {
		cells[r] = make([]string, len(cols))
		for i := range cols {
			if i < len(row) {
				cells[r][i] = visible.Line(row[i])
			}
			widths[i] = max(widths[i], runewidth.StringWidth(cells[r][i]))
		}
	}
	budget := f.Width - 2*(len(cols)-1)
	const least = 4
	last := len(cols) - 1
	natural := widths[last]
	if cols[last].wrap {
		widths[last] = min(natural, 20) // what it keeps before the others give way
	}
	// Who gives way, in turn: the flexible columns, the wrapping one,
	// every other but the ids, and the ids only when nothing else can.
	for _, may := range []func(c column) bool{
		func(c column) bool { return c.flex },
		func(c column) bool { return c.wrap },
		func(c column) bool { return !c.keep },
		func(c column) bool { return true },
	} {
		for sum(widths) > budget {
			cut := -1
			for i, c := range cols {
				if may(c) && widths[i] > least && (cut < 0 || widths[i] > widths[cut]) {
					cut = i
				}
			}
			if cut < 0 {
				break
			}
			widths[cut]--
		}
	}
	if cols[last].wrap {
		widths[last] = max(min(natural, budget-sum(widths[:last])), least)
	}
	// tablewriter lays the fitted, painted cells out without borders (it
	// measures a cell without its color codes); the trailing padding it
	// writes after the last column is trimmed.
	var out bytes.Buffer
	t := tablewriter.NewWriter(&out)
	t.SetAutoWrapText(false)
	t.SetAutoFormatHeaders(false)
	t.SetBorder(false)
	t.SetHeaderLine(false)
	t.SetNoWhiteSpace(true)
	t.SetTablePadding("  ")
	t.SetHeaderAlignment(tablewriter.ALIGN_LEFT)
	aligns := make([]int, len(cols))
	headers := make([]string, len(cols))
	for i, c := range cols {
		aligns[i] = tablewriter.ALIGN_LEFT
		if c.right {
			aligns[i] = tablewriter.ALIGN_RIGHT
		}
		h := clip(c.header, widths[i])
		if c.right { // a number's header stands over it
			h = strings.Repeat(" ", max(widths[i]-runewidth.StringWidth(h), 0)) + h
		}
		headers[i] = paint(f.Color, bold, h)
	}
	t.SetColumnAlignment(aligns)
	t.SetHeader(headers)
	for r, row := range cells {
		painted := make([]string, len(row))
		for i, c := range row {
			text := clip(c, widths[i])
			if i == last && cols[i].wrap {
				text = wrap(c, widths[i])
			}
			color := ""
			if r < len(colors) && i < len(colors[r]) {
				color = colors[r][i]
			}
			lines := strings.Split(text, "\n")
			for j, l := range lines {
				lines[j] = paint(f.Color, color, l)
			}
			painted[i] = strings.Join(lines, "\n")
		}
		t.Append(painted)
	}
	t.Render()
	for _, l := range strings.SplitAfter(out.String(), "\n") {
		if l != "" {
			fmt.Fprintln(w, strings.TrimRight(l, " \n"))
		}
	}
}
