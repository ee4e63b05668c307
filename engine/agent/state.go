package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/host"
	"github.com/agentic-workspace/aw/engine/proc"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Run statuses. running is only true while the process holding the loop
// lives: a reader that finds it gone reports interrupted.
const (
	Running     = "running"
	Completed   = "completed"
	Stopped     = "stopped" // a cap ended the run before the model finished
	Failed      = "failed"
	Interrupted = "interrupted"
	Cancelled   = "cancelled" // aw agent cancel, or a signal to the process running it
)

// settled reports a status no process will change any more (a send or a
// resume starts the run again).
func settled(status string) bool { return status != Running }

// Spec is what a run was asked to do, after defaults and the gate's rules:
// its hash is the idempotency specification (commitEdits included).
type Spec struct {
	Objective string `json:"objective"`
	Context   string `json:"context,omitempty"`
	Role      string `json:"role,omitempty"`
	Model     string `json:"model"`
	Tier      string `json:"tier,omitempty"`
	Mode      string `json:"mode"`
	// ResearchProjectID ties the run to a research project: its
	// searches, fetches and notes are recorded there.
	ResearchProjectID string `json:"researchProjectId,omitempty"`
	// TaskBoardID ties the run to a task board: every pass's brief shows
	// the board as it is then, and its workspace_tasks calls name it.
	TaskBoardID string `json:"taskBoardId,omitempty"`
	// HostParentRunID is the host run whose snapshot the run reads.
	HostParentRunID string `json:"hostParentRunId,omitempty"`
	CommitEdits     bool   `json:"commitEdits"`
	AllowCommands   bool   `json:"allowCommands"`
	AllowWeb        bool   `json:"allowWeb"`
	MaxPasses       int    `json:"maxPasses"`
	RoundsPerPass   int    `json:"roundsPerPass"`
	MaxToolCalls    int    `json:"maxToolCalls"`
}

// State is .agentic/agents/<run_id>/state.json, written before the loop
// starts and after every pass.
type State struct {
	RunID  string `json:"id"` // the name aw inspect changes reads
	Status string `json:"status"`
	Spec   Spec   `json:"spec"`
	// Ground is the host's ground-truth files as of the run's start (nil
	// without a host): every pass's brief shows them.
	Ground         *host.GroundTruth `json:"groundTruth,omitempty"`
	IdempotencyKey string            `json:"idempotencyKey,omitempty"`
	ApprovalID     string            `json:"approvalId,omitempty"`
	// PID is the process holding the loop: the aw of a foreground run, the
	// detached supervisor of a started one (the launcher until the
	// supervisor claims the run). It is the run's owner record: a reader
	// that finds it gone reports the run interrupted.
	PID      int    `json:"pid"`
	PIDStart uint64 `json:"pidStart,omitempty"`
	// Detached: a supervisor (`aw agent supervise`) runs the loop; Claimed
	// once it took the run over from the launcher.
	Detached bool `json:"detached,omitempty"`
	Claimed  bool `json:"claimed,omitempty"`
	// Tier and Grants are what the supervisor's calls run with: the
	// caller's tier and the kinds the human's approval covers.
	Tier   string   `json:"tier,omitempty"`
	Grants []string `json:"grants,omitempty"`
	// Caps are the run's effective pass and tool-call caps: the spec's,
	// raised by a send that re-runs a settled run (each leg gets the
	// spec's caps again).
	CapPasses    int `json:"capPasses,omitempty"`
	CapToolCalls int `json:"capToolCalls,omitempty"`
	// Messages are the instructions sent to the run (aw agent send) that
	// the loop has taken in, in order; InboxBytes is how much of
	// inbox.jsonl that is.
	Messages   []string  `json:"messages,omitempty"`
	InboxBytes int64     `json:"inboxBytes,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	EndedAt    time.Time `json:"endedAt,omitzero"`
	Pass       int       `json:"pass"`
	ToolCalls  int       `json:"toolCalls"`
	Requests   int       `json:"requests"`
	// Passes holds each finished pass's summary: the next pass is built
	// from these, not from the transcript.
	Passes []PassSummary `json:"passes"`
	// Ledger is what the run's calls produced, read from their envelopes.
	Ledger Ledger          `json:"ledger"`
	Result *Result         `json:"result,omitempty"`
	Error  *envelope.Error `json:"error,omitempty"`
}

// PassSummary is what one pass left for the next.
type PassSummary struct {
	Pass    int      `json:"pass"`
	Text    string   `json:"text"`    // the model's own words in the pass (clipped)
	Calls   []string `json:"calls"`   // one line per tool call: tool.action → outcome
	Results []string `json:"results"` // compacted tool results, newest last
}

// Ledger collects the ids a run's tool calls returned.
type Ledger struct {
	Transactions []string `json:"transactions"`
	Jobs         []string `json:"jobs"`
	Sources      []string `json:"sources"`
	ChangedPaths []string `json:"changedPaths"`
	Notes        []string `json:"notes"`
}

// Result is a finished run's report.
type Result struct {
	Summary       string   `json:"summary"`
	Evidence      []string `json:"evidence"`
	RemainingWork []string `json:"remainingWork"`
	Confidence    string   `json:"confidence"`
	StoppedBy     string   `json:"stoppedBy,omitempty"` // the cap that ended it
}

func runDir(ws *workspace.Workspace, id string) string { return ws.Store.Path("agents", id) }
func statePath(ws *workspace.Workspace, id string) string {
	return filepath.Join(runDir(ws, id), "state.json")
}
func transcriptPath(ws *workspace.Workspace, id string) string {
	return filepath.Join(runDir(ws, id), "transcript.jsonl")
}

// cancelPath is the cancel request: any process creates it, the loop
// polls for it. A file beside state.json (never a write to it) keeps
// state.json the owner's alone while the owner lives.
func cancelPath(ws *workspace.Workspace, id string) string {
	return filepath.Join(runDir(ws, id), "cancel")
}

// inboxPath holds the messages sent to a running run, one JSON string a
// line, appended under the store lock; the loop reads what it has not.
func inboxPath(ws *workspace.Workspace, id string) string {
	return filepath.Join(runDir(ws, id), "inbox.jsonl")
}

// save writes state.json atomically, under the store lock: a reader that
// finds the owner gone (markDead) re-reads under the same lock, so it
// never overwrites the owner's last save.
func save(ws *workspace.Workspace, st *State) error {
	st.UpdatedAt = time.Now().UTC()
	unlock, err := ws.Store.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	return ws.Store.WriteJSON(statePath(ws, st.RunID), st)
}

// load reads a run's state; a running run whose process is gone is
// reported (and recorded) as interrupted.
func load(ws *workspace.Workspace, id string) (*State, error) {
	if !store.ValidID(id, "run") {
		return nil, envelope.Errorf(envelope.InvalidInput, "%q is not a run id: run ids look like run_01h...; `aw agent list` shows them", id).With("runId", id)
	}
	var st State
	found, err := ws.Store.ReadJSON(statePath(ws, id), &st)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, envelope.Errorf(envelope.NotFound, "no run %s in this workspace; `aw agent list` shows the runs", id).With("runId", id)
	}
	if st.Status == Running && !proc.Alive(st.PID, st.PIDStart) {
		return markDead(ws, id)
	}
	return &st, nil
}

// markDead records a running run whose process is gone as interrupted
// (cancelled when a cancel was asked for), re-reading it under the store
// lock so an owner that wrote the end and exited in between is not
// mistaken for a lost one.
func markDead(ws *workspace.Workspace, id string) (*State, error) {
	var out State
	err := store.Update(ws.Store, statePath(ws, id), func(cur *State) error {
		if cur.Status == Running && !proc.Alive(cur.PID, cur.PIDStart) {
			cur.Status, cur.EndedAt = Interrupted, time.Now().UTC()
			cur.Error = envelope.Errorf(envelope.Internal, "the process running %s ended before the run did (killed or crashed); its transcript holds every event up to then; `aw agent start --resume %s` continues it from its last finished tool call", id, id)
			if exists(cancelPath(ws, id)) {
				cur.Status, cur.Error = Cancelled, nil
			}
			cur.UpdatedAt = time.Now().UTC()
		}
		out = *cur
		return nil
	})
	return &out, err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// listRuns returns the run ids, newest first.
func listRuns(ws *workspace.Workspace) ([]string, error) {
	entries, err := os.ReadDir(ws.Store.Path("agents"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot list .agentic/agents: %v", err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && store.ValidID(e.Name(), "run") {
			ids = append(ids, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids)))
	return ids, nil
}

// Event is one line of transcript.jsonl.
type Event struct {
	Seq   int             `json:"seq"`
	Time  time.Time       `json:"time"`
	Type  string          `json:"type"` // run_started, reply, tool_result, pass_end, run_end
	Pass  int             `json:"pass,omitempty"`
	Round int             `json:"round,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// transcript appends events to transcript.jsonl. Every event is written
// before the loop goes on (a killed process loses none: the page cache
// outlives it). An event is synced to disk before anything that changes
// state follows it (write ahead): the reply that asks for a writing call
// is durable, with every event before it, before the call runs. Results
// ride along with the next sync (the next writing call's reply, or the
// run's end), so a writing call costs the loop one fsync. A power cut can
// lose a result that no sync covered yet; a resumed run then finds the
// call unanswered and, unless its action may run twice, tells the model
// it may or may not have taken effect: it is never repeated blindly.
type transcript struct {
	f   *os.File
	seq int
}

func openTranscript(path string) (*transcript, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot open the run's transcript: %v", err)
	}
	if err := store.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, envelope.Errorf(envelope.Internal, "cannot sync the run's directory: %v", err)
	}
	return &transcript{f: f}, nil
}

// Syncing modes of append.
const (
	noSync  = iota
	syncNow // on disk, with every event before it, when append returns
)

// append writes one event and syncs it as mode says.
func (t *transcript) append(typ string, pass, round int, data any, mode int) error {
	t.seq++
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	line, err := json.Marshal(Event{Seq: t.seq, Time: time.Now().UTC(), Type: typ, Pass: pass, Round: round, Data: raw})
	if err != nil {
		return err
	}
	if _, err := t.f.Write(append(line, '\n')); err != nil {
		return envelope.Errorf(envelope.Internal, "cannot append to the run's transcript: %v", err)
	}
	if mode == syncNow {
		if err := t.f.Sync(); err != nil {
			return envelope.Errorf(envelope.Internal, "cannot sync the run's transcript: %v", err)
		}
	}
	return nil
}

func (t *transcript) close() { t.f.Close() }

// keys maps idempotency keys to runs (.agentic/agents/keys.json).
type keyEntry struct {
	RunID    string `json:"runId"`
	SpecHash string `json:"specHash"`
}

func keysPath(ws *workspace.Workspace) string { return ws.Store.Path("agents", "keys.json") }
