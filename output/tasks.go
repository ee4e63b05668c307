package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// statusColors paint a status word wherever one is shown: done green,
// waiting yellow, failed red.
var statusColors = map[string]string{
	"completed": green, "approved": green, "consumed": green, "exited": green,
	"in_progress": yellow, "pending": yellow, "running": yellow, "starting": yellow,
	"blocked": red, "denied": red, "expired": red, "failed": red, "killed": red, "timed_out": red,
}

// boardView is a board's record, then its items as a table (AFTER, an
// item's dependencies, names rows by their #, as positions do in tasks
// create), each item's details, and the board's notes.
func boardView(w io.Writer, d viewData, f Format) bool {
	var s struct {
		Board *struct {
			ID     string     `json:"id"`
			Title  string     `json:"title"`
			Status string     `json:"status"`
			Path   string     `json:"path"`
			Items  []taskItem `json:"items"`
			Notes  []struct {
				At   time.Time `json:"at"`
				Text string    `json:"text"`
			} `json:"notes"`
			Checkpoints []struct {
				ID        string    `json:"id"`
				Label     string    `json:"label"`
				CreatedAt time.Time `json:"createdAt"`
			} `json:"checkpoints"`
			CreatedAt time.Time `json:"createdAt"`
			UpdatedAt time.Time `json:"updatedAt"`
		} `json:"board"`
		// Checkpoint is set by show --checkpoint: its items replace the board's.
		Checkpoint *struct {
			ID        string     `json:"id"`
			Label     string     `json:"label"`
			CreatedAt time.Time  `json:"createdAt"`
			Items     []taskItem `json:"items"`
		} `json:"checkpoint"`
	}
	if !d.decode(&s) || s.Board == nil || s.Board.ID == "" {
		return false
	}
	b := s.Board
	checkpoint := ""
	if c := s.Checkpoint; c != nil {
		b.Items = c.Items
		checkpoint = strings.TrimSpace(c.ID+" "+c.Label) + ", " + when(c.CreatedAt)
	}
	counted := map[string]int{}
	for _, it := range b.Items {
		counted[it.Status]++
	}
	var counts []string
	for _, st := range []string{"pending", "in_progress", "completed", "blocked", "cancelled"} {
		if n := counted[st]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(st, "_", " ")))
		}
	}
	fields := []field{
		{label: "board", value: b.ID, color: yellow},
		{label: "title", value: b.Title},
		{label: "checkpoint", value: checkpoint},
		{label: "status", value: b.Status},
		{label: "items", value: fmt.Sprintf("%d: %s", len(b.Items), strings.Join(counts, ", "))},
		{label: "created", value: when(b.CreatedAt)},
		{label: "updated", value: when(b.UpdatedAt)},
		{label: "path", value: b.Path},
	}
	if n := len(b.Checkpoints); n > 0 {
		last := b.Checkpoints[n-1]
		fields = append(fields, field{label: "checkpoints", value: fmt.Sprintf("%d, the last %s %s", n, last.ID, relative(last.CreatedAt))})
	}
	record(w, fields, f)
	if len(b.Items) > 0 {
		position := make(map[string]int, len(b.Items))
		for i, it := range b.Items {
			position[it.ID] = i + 1
		}
		rows := make([][]string, len(b.Items))
		colors := make([][]string, len(b.Items))
		for i, it := range b.Items {
			deps := make([]string, len(it.DependsOn))
			for j, dep := range it.DependsOn {
				deps[j] = dep
				if p, ok := position[dep]; ok {
					deps[j] = "#" + strconv.Itoa(p)
				}
			}
			rows[i] = []string{strconv.Itoa(i + 1), it.ID, it.Status, it.Priority, strings.Join(deps, " "), it.Text}
			colors[i] = []string{"", yellow, statusColors[it.Status]}
		}
		fmt.Fprintln(w)
		grid(w, []column{{header: "#", right: true}, {header: "ID", keep: true}, {header: "STATUS"}, {header: "PRIORITY"}, {header: "AFTER"}, {header: "TEXT", wrap: true}}, rows, colors, f)
		for i, it := range b.Items {
			if it.Details == "" && len(it.Evidence) == 0 {
				continue
			}
			fmt.Fprintln(w)
			var more []field
			more = append(more, field{label: fmt.Sprintf("#%d details", i+1), value: it.Details, lines: true})
			for _, e := range it.Evidence {
				more = append(more, field{label: fmt.Sprintf("#%d evidence", i+1), value: e, lines: true})
			}
			record(w, more, f)
		}
	}
	if len(b.Notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", paint(f.Color, bold, "NOTES"))
		notes := make([]field, len(b.Notes))
		for i, n := range b.Notes {
			notes[i] = field{label: relative(n.At), value: n.Text, lines: true}
		}
		record(w, notes, f)
	}
	return true
}

// taskItem is one item of a board or of a checkpoint's snapshot.
type taskItem struct {
	ID        string   `json:"id"`
	Text      string   `json:"text"`
	Status    string   `json:"status"`
	Priority  string   `json:"priority"`
	Details   string   `json:"details"`
	DependsOn []string `json:"dependsOn"`
	Evidence  []string `json:"evidence"`
}
