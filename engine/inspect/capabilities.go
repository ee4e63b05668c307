package inspect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/broker"
	"github.com/agentic-workspace/aw/engine/browser"
	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/sandbox"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// CapabilitiesRequest is the argument object of inspect.capabilities.
type CapabilitiesRequest struct{}

// OverviewRequest is the argument object of inspect.overview.
type OverviewRequest struct {
	Depth int `json:"depth,omitempty" doc:"levels of the tree: 1 is the root entries; default 2, at most the list.maxDepth setting (5)"`
}

// PlanRef names a plan record.
type PlanRef struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	PlanPath string `json:"planPath,omitempty"`
	Age      string `json:"age,omitempty"`
}

// NotesInfo summarises .agentic/notes and the memory file.
type NotesInfo struct {
	Count        int    `json:"count"`
	MemoryExists bool   `json:"memoryExists"`
	MemoryPath   string `json:"memoryPath"`
}

// StorageEntry is one row of the .agentic/ map: a path, what it holds, and
// whether it exists yet.
type StorageEntry struct {
	Path   string `json:"path"`
	Holds  string `json:"holds"`
	Exists bool   `json:"exists"`
}

// CapabilitiesData is data of inspect.capabilities.
type CapabilitiesData struct {
	Root             string               `json:"root"`
	Scope            string               `json:"scope"`
	PermissionMode   int                  `json:"permissionMode"`
	PermissionLevel  string               `json:"permissionLevel"` // manual, plan, auto
	ActivePlan       *PlanRef             `json:"activePlan"`
	PendingPlan      *PlanRef             `json:"pendingPlan"`
	PendingApprovals int                  `json:"pendingApprovals"`
	Notes            NotesInfo            `json:"notes"`
	Tier             string               `json:"tier"`
	Tools            []workspace.ToolInfo `json:"tools"`
	Sandbox          *sandbox.Status      `json:"sandbox,omitempty"` // when commands are enabled
	Storage          []StorageEntry       `json:"storage"`
	// Processes are the long-lived processes aw started for this workspace
	// and that run now (jobs and their supervisors, browser sessions and
	// their watchdogs); absent when nothing runs.
	Processes []proc.Owned `json:"processes,omitempty"`
}

// OverviewData is the capabilities summary plus the tree.
type OverviewData struct {
	CapabilitiesData
	Tree *ListData `json:"tree"`
}

// storageMap is every path aw keeps under .agentic/, with its limits.
var storageMap = []struct{ path, holds string }{
	{"config.json", "settings (human-owned; change with `aw config set`)"},
	{"MEMORY.md", "durable workspace memory (<= 64,000 bytes)"},
	{"notes", "notes, one <name>.md each (<= 200,000 bytes)"},
	{"approvals/state.json", "approval and plan records (<= 300 kept)"},
	{"plans", "plans, <plan_id>/plan.md"},
	{"transactions", "edit transactions: <tx_id>/transaction.json, changes.diff, review.md, blobs/ (contents by sha256)"},
	{"jobs", "command jobs: <job_id>/job.json, stdout.log, stderr.log"},
	{"tasks", "To-Do boards: <board_id>/state.json"},
	{"research", "research projects: <research_id>/project.json, sources/"},
	{"agents", "sub-agent runs: <run_id>/state.json, transcript.jsonl"},
	{"browser", "browser sessions: <session_id>.json"},
	{"artifacts", "large outputs referenced by envelopes"},
	{"lock", "the store lock"},
}

// Capabilities reports the permission mode, plans, approvals, notes, the
// registered tools and the .agentic/ map: what an agent needs to recover
// after its context was compacted.
func Capabilities(ctx context.Context, ws *workspace.Workspace, req *CapabilitiesRequest) (envelope.Envelope, error) {
	d, err := capabilities(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", capabilitiesSummary(d), d)
	capabilitiesFacts(&env, d)
	return env, nil
}

// Overview is Capabilities plus the workspace tree (list, default depth 2).
func Overview(ctx context.Context, ws *workspace.Workspace, req *OverviewRequest) (envelope.Envelope, error) {
	c, err := capabilities(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	depth := req.Depth
	if depth == 0 {
		depth = 2
	}
	tree, err := listTree(ctx, ws, "", depth, nil, depth)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &OverviewData{CapabilitiesData: *c, Tree: tree}
	env := envelope.New("", "", d)
	if err := spillEntries(ws, &env, tree); err != nil {
		return envelope.Envelope{}, err
	}
	env.Summary = capabilitiesSummary(c) + " Tree: " + listSummary(tree, env.Artifacts) + "."
	capabilitiesFacts(&env, c)
	env.Omit("data.tree.entries", "data.storage")
	return env, nil
}

func capabilities(ws *workspace.Workspace) (*CapabilitiesData, error) {
	st, err := gate.Load(ws, time.Now())
	if err != nil {
		return nil, err
	}
	mode := ws.Settings.PermissionMode
	d := &CapabilitiesData{
		Root:             ws.Root,
		Scope:            display(ws.Rel(ws.Jail.Scope)),
		PermissionMode:   mode,
		PermissionLevel:  workspace.ModeName(mode),
		PendingApprovals: len(st.PendingApprovals()),
		Tier:             ws.Tier.String(),
		Tools:            []workspace.ToolInfo{},
	}
	now := time.Now()
	if p := st.Plan(gate.Approved); p != nil {
		d.ActivePlan = &PlanRef{ID: p.ID, Title: p.Title, PlanPath: p.PlanPath, Age: age(now, p.CreatedAt)}
	}
	if p := st.Plan(gate.Pending); p != nil {
		d.PendingPlan = &PlanRef{ID: p.ID, Title: p.Title, PlanPath: p.PlanPath, Age: age(now, p.CreatedAt)}
	}
	if ws.Tools != nil {
		d.Tools = ws.Tools()
	}
	if ws.Settings.Commands.Enabled {
		st := sandbox.Describe(ws)
		d.Sandbox = &st
	}
	d.Notes.MemoryPath = workspace.StateDir + "/MEMORY.md"
	if fi, err := os.Stat(ws.StatePath("MEMORY.md")); err == nil && fi.Mode().IsRegular() {
		d.Notes.MemoryExists = true
	}
	if ents, err := os.ReadDir(ws.StatePath("notes")); err == nil {
		for _, e := range ents {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") {
				d.Notes.Count++
			}
		}
	}
	d.Processes = append(append(command.Processes(ws), browser.Processes(ws)...), broker.Processes(ws)...)
	for _, list := range MoreProcesses {
		d.Processes = append(d.Processes, list(ws)...)
	}
	for _, s := range storageMap {
		_, err := os.Lstat(ws.StatePath(filepath.FromSlash(s.path)))
		d.Storage = append(d.Storage, StorageEntry{Path: workspace.StateDir + "/" + s.path, Holds: s.holds, Exists: err == nil})
	}
	return d, nil
}

// MoreProcesses are listers of long-lived processes owned by packages
// that import this one (a run's supervisor, engine/agent): they add
// themselves here instead.
var MoreProcesses []func(*workspace.Workspace) []proc.Owned

func age(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return now.Sub(t).Round(time.Second).String()
}

func capabilitiesSummary(d *CapabilitiesData) string {
	s := fmt.Sprintf("Permission mode %s (%d)", workspace.Title(d.PermissionLevel), d.PermissionMode)
	switch {
	case d.ActivePlan != nil:
		s += fmt.Sprintf("; approved plan %s %q", d.ActivePlan.ID, d.ActivePlan.Title)
	case d.PermissionMode == 1:
		s += "; no approved plan: mutating calls fail APPROVAL_REQUIRED until one is approved"
	}
	if d.PendingPlan != nil {
		s += fmt.Sprintf("; plan %s pending the user's /accept", d.PendingPlan.ID)
	}
	s += fmt.Sprintf("; %s pending", plural(d.PendingApprovals, "approval", "approvals"))
	s += fmt.Sprintf("; %s", plural(d.Notes.Count, "note", "notes"))
	if d.Notes.MemoryExists {
		s += fmt.Sprintf(", memory in %s (read it to recover context)", d.Notes.MemoryPath)
	}
	names := make([]string, 0, len(d.Tools))
	for _, t := range d.Tools {
		names = append(names, t.Name)
	}
	s += fmt.Sprintf("; tier %s; tools: %s", d.Tier, strings.Join(names, ", "))
	if d.Sandbox != nil {
		s += "; " + sandboxPhrase(d.Sandbox)
	}
	s += "."
	return s
}

func capabilitiesFacts(env *envelope.Envelope, d *CapabilitiesData) {
	env.Fact("permission mode %s (%d)", workspace.Title(d.PermissionLevel), d.PermissionMode)
	if d.ActivePlan != nil {
		env.Fact("approved plan %s: %s", d.ActivePlan.ID, d.ActivePlan.Title)
	}
	if d.PendingPlan != nil {
		env.Fact("pending plan %s: %s", d.PendingPlan.ID, d.PendingPlan.Title)
	}
	if d.PendingApprovals > 0 {
		env.Fact("%s pending", plural(d.PendingApprovals, "approval", "approvals"))
	}
	if d.Notes.MemoryExists {
		env.Fact("memory: %s", d.Notes.MemoryPath)
	}
	if d.Sandbox != nil {
		env.Fact("%s", sandboxPhrase(d.Sandbox))
	}
	if n := len(d.Processes); n > 0 {
		env.Fact("%s running for this workspace (data.processes)", plural(n, "process", "processes"))
	}
}

// sandboxPhrase says what commands run in: "sandbox: bubblewrap, no
// network", or "sandbox: none (why)".
func sandboxPhrase(s *sandbox.Status) string {
	if s.Mechanism == sandbox.None {
		return "sandbox: none (" + s.Reason + ")"
	}
	net := "no network"
	if s.Network {
		net = "network allowed"
	}
	return "sandbox: " + s.Mechanism + ", " + net
}
