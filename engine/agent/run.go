package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/command"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/host"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/tasks"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Limits of a run request.
const (
	MaxObjectiveChars = 20000
	MaxContextChars   = 100000
	DefaultPasses     = 4
	MaxPasses         = 20
	DefaultRounds     = 8
	MaxRounds         = 50
	DefaultToolCalls  = 40
	MaxToolCallsCap   = 500
)

// RunRequest starts a run (the seed's start parameters).
type RunRequest struct {
	Objective         string `json:"objective" doc:"what the run must achieve (required, at most 20,000 characters)"`
	Context           string `json:"context,omitempty" doc:"background the run starts from: findings, file names, constraints (at most 100,000 characters)"`
	Role              string `json:"role,omitempty" doc:"who the run acts as, in a few words (\"reviewer\", \"test writer\"); added to its instructions"`
	ModelID           string `json:"model_id,omitempty" doc:"the model to ask (default: the tier's model, else agents.model)"`
	Tier              string `json:"tier,omitempty" doc:"fast (mechanical work with a clear specification) or good (design, judgment, reviewing a fast run's output): the model agents.models.fast or agents.models.good names"`
	Mode              string `json:"mode,omitempty" doc:"coding (default), research or general; research runs get no commands unless allow_commands is true"`
	CommitEdits       *bool  `json:"commit_edits,omitempty" doc:"whether the run commits its own transactions; the default comes from the permission mode (Auto and an approved plan: true; Manual: false) and this may only lower it: with false the run's transactions stay planned for you to commit"`
	AllowCommands     *bool  `json:"allow_commands,omitempty" doc:"false keeps the run from running commands; true cannot grant what settings (commands.enabled, agents.allowCommands) do not"`
	AllowWeb          *bool  `json:"allow_web,omitempty" doc:"false keeps the run off the web; true cannot grant what settings (research.enabled, agents.allowWeb) do not"`
	TaskBoardID       string `json:"task_board_id,omitempty" doc:"a board_ the run works from: every pass shows the board, and its workspace_tasks calls name it"`
	ResearchProjectID string `json:"research_project_id,omitempty" doc:"a research_ project the run records into: its searches, fetches and notes go there"`
	HostParentRunID   string `json:"host_parent_run_id,omitempty" doc:"with a host (host.url): the host run (run_...) this run is a sub-agent of; it reads that run's snapshot of the ground-truth files instead of a new one"`
	MaxPasses         int    `json:"max_passes,omitempty" doc:"most passes, each rebuilt from the run's saved state, 1 to 20; default 4"`
	RoundsPerPass     int    `json:"rounds_per_pass,omitempty" doc:"most model requests in one pass, 1 to 50; default 8"`
	MaxToolCalls      int    `json:"max_tool_calls,omitempty" doc:"most tool calls in the whole run, 1 to 500; default 40"`
	IdempotencyKey    string `json:"idempotency_key,omitempty" doc:"a key of your choice: re-issuing the same request with it returns the first run; the same key with another request (or after a permission-mode change that flips commit_edits) is refused"`
}

// RunIDRequest names one run.
type RunIDRequest struct {
	RunID string `json:"run_id" doc:"the run_ id (from run or list)"`
}

// HistoryRequest pages through a run's transcript.
type HistoryRequest struct {
	RunID  string `json:"run_id" doc:"the run_ id"`
	Offset int    `json:"offset,omitempty" doc:"events to skip from the start; default 0"`
	Limit  int    `json:"limit,omitempty" doc:"most events returned, 1 to 200; default 50"`
}

// ListRequest bounds the run listing.
type ListRequest struct {
	Limit int `json:"limit,omitempty" doc:"most runs returned, newest first, 1 to 200; default 20"`
}

// validate checks the request and fills its defaults: it runs before the
// gate, so an invalid request is never staged.
func (req *RunRequest) validate(s *workspace.Settings) (Spec, error) {
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, envelope.Errorf(envelope.InvalidInput, format, args...)
	}
	n := utf8.RuneCountInString(req.Objective)
	switch {
	case strings.TrimSpace(req.Objective) == "":
		return bad("objective is required: say what the run must achieve, e.g. --objective 'Add a test for ParseTier'")
	case n > MaxObjectiveChars:
		return bad("objective is %d characters, more than %d: put the detail in context (up to %d characters)", n, MaxObjectiveChars, MaxContextChars)
	case utf8.RuneCountInString(req.Context) > MaxContextChars:
		return bad("context is %d characters, more than %d: pass paths the run can read instead of their contents", utf8.RuneCountInString(req.Context), MaxContextChars)
	case req.TaskBoardID != "" && !s.Tasks.Enabled:
		return Spec{}, envelope.Errorf(envelope.ToolDisabled, "task_board_id needs To-Do boards, and tasks.enabled is false: a human turns them on with `aw config set tasks.enabled true`").With("setting", "tasks.enabled")
	}
	mode := req.Mode
	if mode == "" {
		mode = "coding"
	}
	if mode != "coding" && mode != "research" && mode != "general" {
		return bad("mode %q is not one of coding, research, general", req.Mode)
	}
	caps := []struct {
		name      string
		v         *int
		def, most int
	}{{"max_passes", &req.MaxPasses, DefaultPasses, MaxPasses}, {"rounds_per_pass", &req.RoundsPerPass, DefaultRounds, MaxRounds}, {"max_tool_calls", &req.MaxToolCalls, DefaultToolCalls, MaxToolCallsCap}}
	vals := make([]int, len(caps))
	for i, c := range caps {
		v, err := envelope.Limit(*c.v, c.def, c.most)
		if err != nil {
			return bad("%s is %d: it must be 1 to %d", c.name, *c.v, c.most)
		}
		vals[i] = v
	}
	model := req.ModelID
	switch req.Tier {
	case "":
	case "fast", "good":
		if model != "" {
			return bad("give model_id or tier, not both: tier %s picks the model agents.models.%s names", req.Tier, req.Tier)
		}
		model = s.Agents.Models.Fast
		if req.Tier == "good" {
			model = s.Agents.Models.Good
		}
		if model == "" {
			return Spec{}, envelope.Errorf(envelope.AgentDisabled, "tier %s names no model: a human sets one with `aw config set agents.models.%s MODEL`, or pass model_id", req.Tier, req.Tier).With("setting", "agents.models."+req.Tier)
		}
	default:
		return bad("tier %q is not fast or good", req.Tier)
	}
	if model == "" {
		model = s.Agents.Model
	}
	commands := s.Commands.Enabled && s.Agents.AllowCommands && mode != "research"
	if req.AllowCommands != nil {
		commands = s.Commands.Enabled && s.Agents.AllowCommands && *req.AllowCommands
	}
	web := s.Research.Enabled && s.Agents.AllowWeb && (req.AllowWeb == nil || *req.AllowWeb)
	return Spec{
		Objective: req.Objective, Context: req.Context, Role: req.Role, Model: model, Tier: req.Tier, Mode: mode, ResearchProjectID: req.ResearchProjectID,
		TaskBoardID: req.TaskBoardID, HostParentRunID: req.HostParentRunID, AllowCommands: commands, AllowWeb: web,
		MaxPasses: vals[0], RoundsPerPass: vals[1], MaxToolCalls: vals[2],
	}, nil
}

// configured checks the settings a run needs to reach a model.
func configured(s *workspace.Settings, spec *Spec) (*Client, error) {
	if !s.Agents.Enabled {
		return nil, envelope.Errorf(envelope.AgentDisabled, "durable sub-agents are disabled; a human can enable them with `aw config set agents.enabled true`").With("setting", "agents.enabled")
	}
	if s.Agents.BaseURL == "" {
		return nil, envelope.Errorf(envelope.AgentDisabled, "no model endpoint is configured; a human sets one with `aw config set agents.baseUrl https://HOST/v1` (an OpenAI-compatible chat-completions endpoint)").With("setting", "agents.baseUrl")
	}
	if spec.Model == "" {
		return nil, envelope.Errorf(envelope.AgentDisabled, "no model is configured; pass model_id or have a human set `aw config set agents.model MODEL`").With("setting", "agents.model")
	}
	key := ""
	if s.Agents.APIKeyEnv != "" {
		key = os.Getenv(s.Agents.APIKeyEnv)
	}
	return &Client{BaseURL: s.Agents.BaseURL, APIKey: key}, nil
}

// RunAction is agent.run: validate, apply the gate's rules for runs, then
// run the loop in this process until the model finishes, a cap ends it or
// it is cancelled (aw agent cancel from any process, or Ctrl-C).
func RunAction(ctx context.Context, ws *workspace.Workspace, req *RunRequest) (envelope.Envelope, error) {
	st, client, env, err := admit(ws, req, "run", false, nil)
	if err != nil || st == nil {
		return env, err
	}
	if !command.LongLived {
		// A Ctrl-C (or a hang-up, or a TERM) cancels the run: it is
		// recorded cancelled, not left for the next reader to find dead.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer stop()
	}
	l := &loop{ws: runWorkspace(ws, st), client: client, st: st}
	l.run(ctx)
	return ended(ws, st), nil
}

// ended is the envelope of a run that settled in this call.
func ended(ws *workspace.Workspace, st *State) envelope.Envelope {
	env := report(ws, st)
	if st.Status == Failed && st.Error != nil {
		// The run could not go on (the endpoint failed, the disk did):
		// the call failed with that error, and data still says where the
		// run's state and transcript are.
		env.OK, env.Error = false, st.Error
		env.Retention.Facts = append(env.Retention.Facts, string(st.Error.Code)+": "+envelope.Clip(st.Error.Message, 300))
	}
	return env
}

// admit validates a run request and applies the gate's rules for runs.
// It returns the new run's state, already saved (status running, this
// process its owner), or, when the run does not start now, the envelope to
// answer with (staged for approval, or the run an idempotency key names).
//
// pre, when set, is the gate's decision the caller already took for the
// run (research deep is gated as web): it is not asked again.
func admit(ws *workspace.Workspace, req *RunRequest, action string, detached bool, pre *gate.Decision) (*State, *Client, envelope.Envelope, error) {
	none := envelope.Envelope{}
	spec, err := req.validate(&ws.Settings)
	if err != nil {
		return nil, nil, none, err
	}
	if spec.ResearchProjectID != "" {
		if err := activeProject(ws, spec.ResearchProjectID); err != nil {
			return nil, nil, none, err
		}
	}
	if spec.TaskBoardID != "" {
		if err := activeBoard(ws, spec.TaskBoardID); err != nil {
			return nil, nil, none, err
		}
	}
	client, err := configured(&ws.Settings, &spec)
	if err != nil {
		return nil, nil, none, err
	}
	if Tools == nil {
		return nil, nil, none, envelope.Errorf(envelope.Internal, "this build of aw has no tool box for sub-agents")
	}
	// commit_edits: the mode's default (Auto, or Plan once a plan is
	// approved: true; Manual: false), which the request may only lower.
	// Plan without an approved plan is refused by the gate below.
	spec.CommitEdits = commitDefault(ws) && (req.CommitEdits == nil || *req.CommitEdits)
	specHash := gate.Hash(spec)
	if req.IdempotencyKey != "" {
		id, err := byKey(ws, req.IdempotencyKey, specHash)
		if err != nil {
			return nil, nil, none, err
		}
		if id != "" {
			if st, err := load(ws, id); err == nil {
				env := report(ws, st)
				env.Summary = fmt.Sprintf("idempotency_key %q already names %s: ", req.IdempotencyKey, st.RunID) + env.Summary
				return nil, nil, env, nil
			} else if e, ok := err.(*envelope.Error); !ok || e.Code != envelope.NotFound {
				return nil, nil, none, err
			}
			// The run it named was pruned: the key starts a new one.
		}
	}
	var grants []string
	approval := ""
	// Manual mode: a run that can neither run commands nor reach the web
	// has nothing to gate (its edits stay planned) and starts at once;
	// otherwise the call itself is staged. Plan and Auto decide as for
	// every gated action.
	if pre != nil {
		approval = pre.Approval
		grants = manualGrants(ws, &spec)
	} else if ws.Settings.PermissionMode != gate.Manual || spec.AllowCommands || spec.AllowWeb {
		d, err := gate.Check(ws, gate.Operation{
			Kind:   "agent",
			Title:  envelope.Clip(fmt.Sprintf("Run a sub-agent (%s%s): %s", spec.Mode, reach(&spec), firstLine(spec.Objective)), 200),
			Hash:   specHash,
			Resume: gate.Resume{Tool: "workspace_agent", Arguments: resumeArgs(req, action)},
			Review: review(&spec),
		})
		if err != nil {
			return nil, nil, none, err
		}
		if d.Staged != nil {
			return nil, nil, gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
		}
		approval = d.Approval
		grants = manualGrants(ws, &spec)
	}
	// The host's ground truth is read as of the run's start, before the
	// run exists: a host that cannot answer refuses the run, and the
	// approval stays for the retry.
	ground, err := host.StartRun(context.Background(), ws, spec.HostParentRunID)
	if err != nil {
		return nil, nil, none, err
	}
	now := time.Now().UTC()
	st := &State{
		RunID: store.NewID("run"), Status: Running, Spec: spec, Ground: ground, IdempotencyKey: req.IdempotencyKey, ApprovalID: approval,
		PID: os.Getpid(), PIDStart: proc.Start(os.Getpid()), Detached: detached, Tier: ws.Tier.String(), Grants: grants,
		CapPasses: spec.MaxPasses, CapToolCalls: spec.MaxToolCalls, CreatedAt: now, Passes: []PassSummary{},
	}
	if err := os.MkdirAll(runDir(ws, st.RunID), 0o755); err != nil {
		return nil, nil, none, envelope.Errorf(envelope.Internal, "cannot create the run's directory: %v", err)
	}
	if err := save(ws, st); err != nil {
		return nil, nil, none, err
	}
	if req.IdempotencyKey != "" {
		if err := recordKey(ws, req.IdempotencyKey, st.RunID, specHash); err != nil {
			return nil, nil, none, err
		}
	}
	if err := gate.Consume(ws, approval); err != nil {
		return nil, nil, none, err
	}
	return st, client, none, nil
}

// activeProject checks that a research project exists and is not
// archived (its record is read as it is on disk: engine/research imports
// this package).
func activeProject(ws *workspace.Workspace, id string) error {
	var p struct {
		Status string `json:"status"`
	}
	found, err := ws.Store.ReadJSON(ws.Store.Path("research", id, "project.json"), &p)
	if err != nil {
		return err
	}
	if !store.ValidID(id, "research") || !found {
		return envelope.Errorf(envelope.NotFound, "no research project %s: `aw research list` shows them, `aw research start TITLE` creates one", id).With("researchId", id)
	}
	if p.Status == "archived" {
		return envelope.Errorf(envelope.TransactionState, "research project %s is archived (read-only): start a new one", id).With("researchId", id)
	}
	return nil
}

// activeBoard checks that a task board exists and is not archived (the
// run's task updates would be refused).
func activeBoard(ws *workspace.Workspace, id string) error {
	b, err := tasks.Load(ws, id)
	if err != nil {
		return err
	}
	if b.Status == tasks.Archived {
		return envelope.Errorf(envelope.TransactionState, "task board %s is archived (read-only): `aw tasks reopen %s` first, or start the run without it", id, id).With("board_id", id)
	}
	return nil
}

// commitDefault is commit_edits' default in the current permission mode.
func commitDefault(ws *workspace.Workspace) bool { return ws.Settings.PermissionMode != gate.Manual }

// manualGrants: the human approved a Manual-mode run with what it may
// reach, so its own command and web calls run under that approval (the
// command policy, jail and sandbox still check each one).
func manualGrants(ws *workspace.Workspace, spec *Spec) []string {
	var grants []string
	if ws.Settings.PermissionMode == gate.Manual {
		if spec.AllowCommands {
			grants = append(grants, "command")
		}
		if spec.AllowWeb {
			grants = append(grants, "web")
		}
	}
	return grants
}

// runWorkspace is the workspace as the run's own calls see it: no human
// caller, the tier its settings allow, the kinds its approval covers.
func runWorkspace(ws *workspace.Workspace, st *State) *workspace.Workspace {
	rws := *ws
	rws.Caller = workspace.Caller{}
	rws.Grants = st.Grants
	rws.Tools = nil
	if !st.Spec.AllowCommands && !st.Spec.AllowWeb && rws.Tier > workspace.TierWrite {
		rws.Tier = workspace.TierWrite
	}
	return &rws
}

func reach(s *Spec) string {
	var r []string
	if s.AllowCommands {
		r = append(r, "commands")
	}
	if s.AllowWeb {
		r = append(r, "web")
	}
	if !s.CommitEdits {
		r = append(r, "edits stay planned")
	}
	if len(r) == 0 {
		return ""
	}
	return "; " + strings.Join(r, ", ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// review is what a human deciding the run is shown.
func review(s *Spec) string {
	raw, _ := json.MarshalIndent(s, "", "  ")
	return string(raw)
}

// resumeArgs is the call to re-issue once the run is approved.
func resumeArgs(req any, action string) map[string]any {
	raw, _ := json.Marshal(req)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	m["action"] = action
	return m
}

// byKey returns the run an idempotency key names ("" for a new key); the
// same key with another specification is EDIT_CONFLICT.
func byKey(ws *workspace.Workspace, key, specHash string) (string, error) {
	keys := map[string]keyEntry{}
	if _, err := ws.Store.ReadJSON(keysPath(ws), &keys); err != nil {
		return "", err
	}
	e, ok := keys[key]
	if !ok {
		return "", nil
	}
	if e.SpecHash != specHash {
		return "", envelope.Errorf(envelope.EditConflict, "idempotency_key %q was used by %s with another specification (a different request, or the permission mode changed what commit_edits defaults to); use a new key for a different run", key, e.RunID).With("runId", e.RunID).With("reason", "key-reused")
	}
	return e.RunID, nil
}

func recordKey(ws *workspace.Workspace, key, id, specHash string) error {
	return store.Update(ws.Store, keysPath(ws), func(keys *map[string]keyEntry) error {
		if *keys == nil {
			*keys = map[string]keyEntry{}
		}
		(*keys)[key] = keyEntry{RunID: id, SpecHash: specHash}
		return nil
	})
}

// RunData is the data of run and status.
type RunData struct {
	RunID          string          `json:"runId"`
	Status         string          `json:"status"`
	Mode           string          `json:"mode"`
	Model          string          `json:"model"`
	CommitEdits    bool            `json:"commitEdits"`
	AllowCommands  bool            `json:"allowCommands"`
	AllowWeb       bool            `json:"allowWeb"`
	ResearchID     string          `json:"researchProjectId,omitempty"`
	TaskBoardID    string          `json:"taskBoardId,omitempty"`
	HostSnapshot   *HostSnapshot   `json:"hostSnapshot,omitempty"`
	Passes         int             `json:"passes"`
	ToolCalls      int             `json:"toolCalls"`
	Requests       int             `json:"requests"`
	Summary        string          `json:"summary"`
	Evidence       []string        `json:"evidence"`
	RemainingWork  []string        `json:"remainingWork"`
	Confidence     string          `json:"confidence"`
	StoppedBy      string          `json:"stoppedBy,omitempty"`
	ChangedPaths   []string        `json:"changedPaths"`
	Transactions   []string        `json:"transactions"`
	Jobs           []string        `json:"jobs"`
	Sources        []string        `json:"sources"`
	StatePath      string          `json:"statePath"`
	TranscriptPath string          `json:"transcriptPath"`
	CreatedAt      time.Time       `json:"createdAt"`
	EndedAt        time.Time       `json:"endedAt,omitzero"`
	Error          *envelope.Error `json:"error,omitempty"`
}

// HostSnapshot is the host snapshot a run reads, as its report shows it.
type HostSnapshot struct {
	HostRunID   string   `json:"hostRunId"`
	ParentRunID string   `json:"parentRunId,omitempty"`
	SnapshotID  string   `json:"snapshotId"`
	Files       []string `json:"files"`
}

// report is a run's envelope: its result when it ended, its progress
// while it runs. Ids go in facts, which compaction keeps.
func report(ws *workspace.Workspace, st *State) envelope.Envelope {
	d := &RunData{
		RunID: st.RunID, Status: st.Status, Mode: st.Spec.Mode, Model: st.Spec.Model,
		CommitEdits: st.Spec.CommitEdits, AllowCommands: st.Spec.AllowCommands, AllowWeb: st.Spec.AllowWeb, ResearchID: st.Spec.ResearchProjectID,
		TaskBoardID: st.Spec.TaskBoardID, Passes: st.Pass, ToolCalls: st.ToolCalls, Requests: st.Requests,
		Evidence: []string{}, RemainingWork: []string{},
		ChangedPaths: nonNil(st.Ledger.ChangedPaths), Transactions: nonNil(st.Ledger.Transactions),
		Jobs: nonNil(st.Ledger.Jobs), Sources: nonNil(st.Ledger.Sources),
		StatePath: ws.Store.Rel(statePath(ws, st.RunID)), TranscriptPath: ws.Store.Rel(transcriptPath(ws, st.RunID)),
		CreatedAt: st.CreatedAt, EndedAt: st.EndedAt, Error: st.Error,
	}
	if g := st.Ground; g != nil {
		d.HostSnapshot = &HostSnapshot{HostRunID: g.RunID, ParentRunID: g.ParentRunID, SnapshotID: g.SnapshotID, Files: []string{}}
		for _, f := range g.Files {
			d.HostSnapshot.Files = append(d.HostSnapshot.Files, f.Path)
		}
	}
	if r := st.Result; r != nil {
		d.Summary, d.Evidence, d.RemainingWork, d.Confidence, d.StoppedBy = r.Summary, nonNil(r.Evidence), nonNil(r.RemainingWork), r.Confidence, r.StoppedBy
	}
	var summary string
	switch st.Status {
	case Completed:
		summary = fmt.Sprintf("Run %s completed after %d pass(es) and %d tool call(s): %s", st.RunID, st.Pass, st.ToolCalls, envelope.Clip(d.Summary, 1500))
	case Stopped:
		summary = fmt.Sprintf("Run %s stopped at its %s cap after %d pass(es) and %d tool call(s); remaining work is listed. Its last summary: %s", st.RunID, d.StoppedBy, st.Pass, st.ToolCalls, envelope.Clip(d.Summary, 1500))
	case Running:
		summary = fmt.Sprintf("Run %s is running: pass %d, %d tool call(s) so far.", st.RunID, st.Pass, st.ToolCalls)
	default:
		msg := ""
		if st.Error != nil {
			msg = ": " + st.Error.Message
		}
		summary = fmt.Sprintf("Run %s %s after %d pass(es) and %d tool call(s)%s", st.RunID, st.Status, st.Pass, st.ToolCalls, msg)
	}
	if len(d.Transactions) > 0 && !st.Spec.CommitEdits {
		summary += fmt.Sprintf(" Its transactions stay planned (commit_edits=false): review and commit them with `aw edit commit TX` (%s).", strings.Join(d.Transactions, ", "))
	}
	env := envelope.New("", summary, d)
	env.Retention.Importance = envelope.High
	env.Fact("run %s %s", st.RunID, st.Status)
	for _, id := range d.Transactions {
		env.Fact("transaction %s from run %s", id, st.RunID)
	}
	for _, id := range d.Jobs {
		env.Fact("job %s from run %s", id, st.RunID)
	}
	if n := len(d.ChangedPaths); n > 0 {
		env.Fact("run %s changed %d path(s): %s", st.RunID, n, strings.Join(d.ChangedPaths[:min(n, 20)], ", "))
	}
	if n := len(d.RemainingWork); n > 0 {
		env.Fact("run %s left %d item(s) of remaining work", st.RunID, n)
	}
	env.Fact("run state %s", d.StatePath)
	return env
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Status is agent.status.
func Status(ctx context.Context, ws *workspace.Workspace, req *RunIDRequest) (envelope.Envelope, error) {
	st, err := load(ws, req.RunID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	return report(ws, st), nil
}

// ListData is the data of list.
type ListData struct {
	Runs      []RunEntry `json:"runs"`
	Total     int        `json:"total"`
	Truncated bool       `json:"truncated"`
}

// RunEntry is one run in a listing.
type RunEntry struct {
	RunID     string    `json:"runId"`
	Status    string    `json:"status"`
	Mode      string    `json:"mode"`
	Objective string    `json:"objective"`
	ToolCalls int       `json:"toolCalls"`
	CreatedAt time.Time `json:"createdAt"`
}

// List is agent.list.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, 20, 200)
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "limit is %d: it must be 1 to 200", req.Limit)
	}
	ids, err := listRuns(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &ListData{Runs: []RunEntry{}, Total: len(ids), Truncated: len(ids) > limit}
	if len(ids) > limit {
		ids = ids[:limit]
	}
	for _, id := range ids {
		st, err := load(ws, id)
		if err != nil {
			return envelope.Envelope{}, err
		}
		d.Runs = append(d.Runs, RunEntry{RunID: st.RunID, Status: st.Status, Mode: st.Spec.Mode, Objective: envelope.Clip(firstLine(st.Spec.Objective), 120), ToolCalls: st.ToolCalls, CreatedAt: st.CreatedAt})
	}
	summary := fmt.Sprintf("%d run(s)", d.Total)
	if d.Truncated {
		summary += fmt.Sprintf(", showing the newest %d", limit)
	}
	env := envelope.New("", summary+".", d)
	for i, r := range d.Runs {
		if i == 20 {
			break
		}
		env.Fact("run %s %s", r.RunID, r.Status)
	}
	return env, nil
}

// HistoryData is one page of a transcript.
type HistoryData struct {
	RunID      string            `json:"runId"`
	Status     string            `json:"status"`
	Events     []json.RawMessage `json:"events"`
	Offset     int               `json:"offset"`
	Total      int               `json:"total"`
	NextOffset int               `json:"nextOffset,omitempty"`
	Truncated  bool              `json:"truncated"`
	Path       string            `json:"transcriptPath"`
}

// History is agent.history: a page of the transcript, each event clipped
// so the page stays within maxToolResultChars (the whole file is the
// transcriptPath).
func History(ctx context.Context, ws *workspace.Workspace, req *HistoryRequest) (envelope.Envelope, error) {
	st, err := load(ws, req.RunID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	limit, err := envelope.Limit(req.Limit, 50, 200)
	if err != nil || req.Offset < 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "limit must be 1 to 200 and offset 0 or more (got limit %d, offset %d)", req.Limit, req.Offset)
	}
	raw, err := os.ReadFile(transcriptPath(ws, st.RunID))
	if err != nil && !os.IsNotExist(err) {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot read the run's transcript: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(raw) == 0 {
		lines = nil
	}
	d := &HistoryData{RunID: st.RunID, Status: st.Status, Events: []json.RawMessage{}, Offset: req.Offset, Total: len(lines), Path: ws.Store.Rel(transcriptPath(ws, st.RunID))}
	budget := ws.Settings.MaxToolResultChars
	per := max(budget/4, 1000) // one event's share; the page stops at the budget
	used := 0
	for i := req.Offset; i < len(lines) && len(d.Events) < limit; i++ {
		line := lines[i]
		if len(line) > per {
			clipped, _ := json.Marshal(map[string]any{"clipped": true, "bytes": len(line), "start": envelope.Clip(line, per)})
			line = string(clipped)
		}
		if used+len(line) > budget && len(d.Events) > 0 {
			break
		}
		used += len(line)
		d.Events = append(d.Events, json.RawMessage(line))
	}
	if end := req.Offset + len(d.Events); end < len(lines) {
		d.NextOffset, d.Truncated = end, true
	}
	summary := fmt.Sprintf("Run %s (%s): events %d-%d of %d.", st.RunID, st.Status, req.Offset+1, req.Offset+len(d.Events), d.Total)
	if d.Truncated {
		summary += fmt.Sprintf(" More with offset %d; the whole transcript is %s.", d.NextOffset, d.Path)
	}
	env := envelope.New("", summary, d)
	env.Omit("data.events")
	env.Fact("run %s %s, transcript %s", st.RunID, st.Status, d.Path)
	return env, nil
}
