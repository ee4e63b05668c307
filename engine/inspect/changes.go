package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// ChangesRequest is the argument object of inspect.changes.
type ChangesRequest struct{}

// The records below are what inspect.changes reads from the store. They
// are the contract the writers of those files (edit transactions, command
// jobs, task boards, research projects, agent runs) must follow: these
// field names, in these files. Writers may add fields; they must not
// rename or retype these.

// TransactionRecord is .agentic/transactions/<tx_id>/transaction.json
// (engine/edit writes it; files and directories are objects with a path).
type TransactionRecord struct {
	ID          string      `json:"id"`
	Status      string      `json:"status"` // planned, applied, rolled_back, failed
	Files       []pathEntry `json:"files"`
	Directories []pathEntry `json:"directories"`
	CreatedAt   time.Time   `json:"createdAt"`
}

type pathEntry struct {
	Path string `json:"path"`
}

func paths(entries []pathEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Path
	}
	return out
}

// JobRecord is .agentic/jobs/<job_id>/job.json.
type JobRecord struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	Executable string    `json:"executable"`
	ExitCode   *int      `json:"exitCode"`
	StartedAt  time.Time `json:"startedAt"`
	// Changes is what the job did to the workspace (its snapshot).
	Changes *snapshot.Summary `json:"changes"`
}

// BoardRecord is .agentic/tasks/<board_id>/state.json.
type BoardRecord struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// ResearchRecord is .agentic/research/<research_id>/project.json.
type ResearchRecord struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// TodoRecord is .agentic/tasks/todo.json, the session checklist.
type TodoRecord struct {
	Todos []struct {
		Status string `json:"status"`
	} `json:"todos"`
}

// TodoSummary counts the session checklist by status.
type TodoSummary struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	InProgress int `json:"inProgress"`
	Completed  int `json:"completed"`
}

// RunRecord is what the recovery listing shows of
// .agentic/agents/<run_id>/state.json. A run recorded running whose
// process is gone is shown interrupted (`aw agent status` records it).
type RunRecord struct {
	ID        string    `json:"id"`
	Status    string    `json:"status"`
	Mode      string    `json:"mode,omitempty"`
	ToolCalls int       `json:"toolCalls"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	PID       int       `json:"-"`
	PIDStart  uint64    `json:"-"`
}

// UnmarshalJSON reads the fields the listing shows from a run's state.
func (r *RunRecord) UnmarshalJSON(raw []byte) error {
	var st struct {
		ID        string    `json:"id"`
		Status    string    `json:"status"`
		ToolCalls int       `json:"toolCalls"`
		CreatedAt time.Time `json:"createdAt"`
		PID       int       `json:"pid"`
		PIDStart  uint64    `json:"pidStart"`
		Spec      struct {
			Mode string `json:"mode"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return err
	}
	*r = RunRecord{ID: st.ID, Status: st.Status, Mode: st.Spec.Mode, ToolCalls: st.ToolCalls, CreatedAt: st.CreatedAt, PID: st.PID, PIDStart: st.PIDStart}
	if r.Status == "running" && !proc.Alive(r.PID, r.PIDStart) {
		r.Status = "interrupted"
	}
	return nil
}

// maxListed caps each transaction's files and directories in the listing.
const maxListed = 20

// TransactionEntry is one transaction in the recovery listing.
type TransactionEntry struct {
	ID                   string   `json:"id"`
	Status               string   `json:"status"`
	CreatedAt            string   `json:"createdAt,omitempty"`
	FileCount            int      `json:"fileCount"`
	Files                []string `json:"files"`
	FilesTruncated       bool     `json:"filesTruncated"`
	DirectoryCount       int      `json:"directoryCount"`
	Directories          []string `json:"directories"`
	DirectoriesTruncated bool     `json:"directoriesTruncated"`
}

// NewTransactionEntry is a transaction as every listing shows it (inspect
// changes, edit list): the paths it touches, each list capped at 20 with
// its count and a *Truncated flag.
func NewTransactionEntry(id, status string, createdAt time.Time, files, dirs []string) TransactionEntry {
	e := TransactionEntry{ID: id, Status: status, FileCount: len(files), DirectoryCount: len(dirs)}
	if !createdAt.IsZero() {
		e.CreatedAt = createdAt.UTC().Format(time.RFC3339)
	}
	e.Files, e.FilesTruncated = capList(files)
	e.Directories, e.DirectoriesTruncated = capList(dirs)
	return e
}

// JobEntry is one command job.
type JobEntry struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Executable string `json:"executable"`
	ExitCode   *int   `json:"exitCode"`
	StartedAt  string `json:"startedAt,omitempty"`
	// Changed are the paths the job changed in the workspace (the first 20
	// of ChangedCount; aw command diff shows them, aw command undo puts
	// them back). Absent when the job recorded nothing.
	Changed          []string `json:"changed,omitempty"`
	ChangedCount     int      `json:"changedCount,omitempty"`
	ChangedTruncated bool     `json:"changedTruncated,omitempty"`
}

// ApprovalEntry is a pending or approved non-plan approval.
type ApprovalEntry struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Title  string `json:"title"`
	Kind   string `json:"kind"`
}

// PlanEntry is a plan record with where its markdown lives.
type PlanEntry struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Title    string `json:"title"`
	PlanPath string `json:"planPath"`
}

// ChangesData is data of inspect.changes.
type ChangesData struct {
	Transactions     []TransactionEntry `json:"transactions"`
	Runs             []RunRecord        `json:"runs"`
	Jobs             []JobEntry         `json:"jobs"`
	TaskBoards       []BoardRecord      `json:"taskBoards"`
	ResearchProjects []ResearchRecord   `json:"researchProjects"`
	Approvals        []ApprovalEntry    `json:"approvals"`
	Plans            []PlanEntry        `json:"plans"`
	Todo             TodoSummary        `json:"todo"`
}

// Changes is the recovery listing: every durable record an agent may need
// to find its way back to after its context was compacted.
func Changes(ctx context.Context, ws *workspace.Workspace, req *ChangesRequest) (envelope.Envelope, error) {
	d := &ChangesData{Transactions: []TransactionEntry{}, Runs: []RunRecord{}, Jobs: []JobEntry{}, TaskBoards: []BoardRecord{},
		ResearchProjects: []ResearchRecord{}, Approvals: []ApprovalEntry{}, Plans: []PlanEntry{}}
	err := eachRecord(ws, "transactions", "transaction.json", func(id string, t *TransactionRecord) {
		d.Transactions = append(d.Transactions, NewTransactionEntry(orID(t.ID, id), t.Status, t.CreatedAt, paths(t.Files), paths(t.Directories)))
	})
	if err == nil {
		err = eachRecord(ws, "jobs", "job.json", func(id string, j *JobRecord) {
			e := JobEntry{ID: orID(j.ID, id), Status: j.Status, Executable: j.Executable, ExitCode: j.ExitCode}
			if c := j.Changes; c != nil && c.Total() > 0 {
				for _, p := range c.Paths {
					e.Changed = append(e.Changed, p.Path)
				}
				var cut bool
				e.Changed, cut = capList(e.Changed)
				e.ChangedCount, e.ChangedTruncated = c.Total(), c.Truncated || cut
			}
			if !j.StartedAt.IsZero() {
				e.StartedAt = j.StartedAt.UTC().Format(time.RFC3339)
			}
			d.Jobs = append(d.Jobs, e)
		})
	}
	if err == nil {
		err = eachRecord(ws, "tasks", "state.json", func(id string, b *BoardRecord) {
			b.ID = orID(b.ID, id)
			d.TaskBoards = append(d.TaskBoards, *b)
		})
	}
	if err == nil {
		err = eachRecord(ws, "research", "project.json", func(id string, r *ResearchRecord) {
			r.ID = orID(r.ID, id)
			d.ResearchProjects = append(d.ResearchProjects, *r)
		})
	}
	if err == nil {
		err = eachRecord(ws, "agents", "state.json", func(id string, r *RunRecord) {
			r.ID = orID(r.ID, id)
			d.Runs = append(d.Runs, *r)
		})
	}
	if err != nil {
		return envelope.Envelope{}, err
	}
	var todo TodoRecord
	if _, err := ws.Store.ReadJSON(ws.StatePath("tasks", "todo.json"), &todo); err != nil {
		return envelope.Envelope{}, err
	}
	for _, t := range todo.Todos {
		d.Todo.Total++
		switch t.Status {
		case "pending":
			d.Todo.Pending++
		case "in_progress":
			d.Todo.InProgress++
		case "completed":
			d.Todo.Completed++
		}
	}
	st, err := gate.Load(ws, time.Now())
	if err != nil {
		return envelope.Envelope{}, err
	}
	for _, r := range st.Newest(func(r *gate.Record) bool {
		return r.Kind != "plan" && (r.Status == gate.Pending || r.Status == gate.Approved)
	}) {
		d.Approvals = append(d.Approvals, ApprovalEntry{ID: r.ID, Status: r.Status, Title: r.Title, Kind: r.Kind})
	}
	for _, r := range st.Newest(func(r *gate.Record) bool { return r.Kind == "plan" }) {
		d.Plans = append(d.Plans, PlanEntry{ID: r.ID, Status: r.Status, Title: r.Title, PlanPath: r.PlanPath})
	}
	summary := fmt.Sprintf("%s, %s, %s, %s, %s, %s, %s",
		plural(len(d.Transactions), "transaction", "transactions"), plural(len(d.Jobs), "job", "jobs"),
		plural(len(d.Runs), "agent run", "agent runs"), plural(len(d.TaskBoards), "task board", "task boards"),
		plural(len(d.ResearchProjects), "research project", "research projects"),
		plural(len(d.Approvals), "open approval", "open approvals"), plural(len(d.Plans), "plan", "plans"))
	if d.Todo.Total > 0 {
		summary += fmt.Sprintf(", a checklist of %d (%d completed)", d.Todo.Total, d.Todo.Completed)
	}
	env := envelope.New("", "Recovery listing: "+summary, d)
	if d.Todo.Total > 0 {
		env.Fact("checklist: %d items, %d pending, %d in progress, %d completed (aw tasks todo read)", d.Todo.Total, d.Todo.Pending, d.Todo.InProgress, d.Todo.Completed)
	}
	env.Retention.Importance = envelope.High
	for i, a := range d.Approvals {
		if i == 5 {
			break
		}
		env.Fact("approval %s %s: %s", a.ID, a.Status, a.Title)
	}
	for _, p := range d.Plans {
		if p.Status == gate.Pending || p.Status == gate.Approved {
			env.Fact("plan %s %s: %s", p.ID, p.Status, p.PlanPath)
		}
	}
	// jobs stay: after compaction they are the one route back to a job_ id.
	env.Omit("data.transactions", "data.taskBoards", "data.researchProjects", "data.runs")
	return env, nil
}

// eachRecord decodes dir/<id>/file for every id under .agentic/dir, in id
// order (ids sort by creation time). A file that does not parse fails the
// call (INTERNAL with its path): state is never silently skipped.
func eachRecord[T any](ws *workspace.Workspace, dir, file string, fn func(id string, rec *T)) error {
	ents, err := os.ReadDir(ws.StatePath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return envelope.Errorf(envelope.Internal, "cannot read %s/%s: %v; check its permissions", workspace.StateDir, dir, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		var rec T
		found, err := ws.Store.ReadJSON(ws.StatePath(dir, e.Name(), file), &rec)
		if err != nil {
			return err
		}
		if found {
			fn(e.Name(), &rec)
		}
	}
	return nil
}

func orID(id, dirName string) string {
	if id == "" {
		return dirName
	}
	return id
}

func capList(l []string) ([]string, bool) {
	if l == nil {
		return []string{}, false
	}
	if len(l) > maxListed {
		return l[:maxListed], true
	}
	return l, false
}
