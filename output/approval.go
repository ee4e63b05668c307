package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// approvalRecord is a record of the permission gate, as show and list
// return it.
type approvalRecord struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Status      string `json:"status"`
	Title       string `json:"title"`
	Hash        string `json:"hash"`
	Destructive bool   `json:"destructive"`
	Resume      *struct {
		Tool      string         `json:"tool"`
		Arguments map[string]any `json:"arguments"`
		Command   string         `json:"command"`
	} `json:"resume"`
	PlanPath   string    `json:"planPath"`
	Revision   int       `json:"revision"`
	Note       string    `json:"note"`
	Review     string    `json:"review"`
	Supersedes string    `json:"supersedes"`
	Summary    string    `json:"summary"`
	CreatedAt  time.Time `json:"createdAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
	DecidedAt  time.Time `json:"decidedAt"`
}

// approvalView is the record's fields, one per line as the confirmation
// screen of accept shows them, then what is decided on: the diff
// (colored), the command line or the plan.
func approvalView(w io.Writer, d viewData, f Format) bool {
	var s struct {
		Approval        *approvalRecord `json:"approval"`
		Review          string          `json:"review"`
		ReviewPath      string          `json:"reviewPath"`
		ReviewTruncated bool            `json:"reviewTruncated"`
	}
	if !d.decode(&s) || s.Approval == nil || s.Approval.ID == "" {
		return false
	}
	r := s.Approval
	fields := []field{
		{label: "id", value: r.ID, color: yellow},
		{label: "kind", value: r.Kind},
		{label: "status", value: r.Status, color: statusColors[r.Status]},
		{label: "title", value: r.Title},
	}
	if r.Destructive {
		fields = append(fields, field{label: "destructive", value: "yes (it deletes, moves or overwrites existing content)", color: red})
	}
	fields = append(fields,
		field{label: "created", value: when(r.CreatedAt)},
		field{label: "expires", value: when(r.ExpiresAt)},
		field{label: "decided", value: when(r.DecidedAt)},
	)
	if r.Resume != nil {
		resume := r.Resume.Command
		if resume == "" {
			args, _ := json.Marshal(r.Resume.Arguments)
			resume = r.Resume.Tool + " " + string(args)
		}
		fields = append(fields, field{label: "resumes as", value: resume})
	}
	if r.Revision > 0 {
		fields = append(fields, field{label: "revision", value: strconv.Itoa(r.Revision)})
	}
	fields = append(fields,
		field{label: "supersedes", value: r.Supersedes},
		field{label: "note", value: r.Note},
		field{label: "summary", value: r.Summary},
		field{label: "hash", value: r.Hash},
	)
	record(w, fields, f)
	title := "review:"
	if s.ReviewPath != "" {
		title = fmt.Sprintf("review (%s):", s.ReviewPath)
	}
	block(w, title, s.Review, f)
	if s.ReviewTruncated {
		fmt.Fprintln(w, "… cut; the whole of it is in the file above")
	}
	return true
}

// approvalsView is one line per record: id, status, age, title; the
// kind too when the screen is wide enough.
func approvalsView(w io.Writer, d viewData, f Format) bool {
	var s struct {
		Approvals []approvalRecord `json:"approvals"`
	}
	if !d.decode(&s) || s.Approvals == nil {
		return false
	}
	cols := []column{{header: "ID", keep: true}, {header: "STATUS"}, {header: "CREATED"}, {header: "TITLE", flex: true}}
	wide := f.Width >= 100
	if wide {
		cols = append(cols[:2], append([]column{{header: "KIND"}}, cols[2:]...)...)
	}
	rows := make([][]string, len(s.Approvals))
	colors := make([][]string, len(s.Approvals))
	for i, r := range s.Approvals {
		rows[i] = []string{r.ID, r.Status, relative(r.CreatedAt), r.Title}
		colors[i] = []string{yellow, statusColors[r.Status]}
		if wide {
			rows[i] = []string{r.ID, r.Status, r.Kind, relative(r.CreatedAt), r.Title}
		}
	}
	if len(rows) > 0 {
		grid(w, cols, rows, colors, f)
	}
	return true
}
