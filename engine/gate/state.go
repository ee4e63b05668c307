// Package gate owns the permission gate: permission modes, approval and plan
// records, destructive checks and the human verbs. Every gated action of
// every tool calls it; it never prints and never runs the action itself.
package gate

import (
	"sort"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// Record statuses: pending, approved and denied expire after Lifetime;
// consumed, completed and superseded are terminal.
const (
	Pending    = "pending"
	Approved   = "approved"
	Denied     = "denied"
	Consumed   = "consumed"
	Completed  = "completed"  // plans
	Superseded = "superseded" // plans
	Expired    = "expired"
)

// Lifetime is how long a pending, approved or denied record lives.
const Lifetime = 24 * time.Hour

// Record is one approval or plan.
type Record struct {
	ID          string    `json:"id"`
	Kind        string    `json:"kind"` // transaction, command, vcs, browser, web, agent, plan
	Status      string    `json:"status"`
	Title       string    `json:"title"`
	Hash        string    `json:"hash,omitempty"` // SHA-256 of the normalized operation
	Destructive bool      `json:"destructive,omitempty"`
	Resume      *Resume   `json:"resume,omitempty"`
	PlanPath    string    `json:"planPath,omitempty"`
	Revision    int       `json:"revision,omitempty"`
	Note        string    `json:"note,omitempty"`
	Review      string    `json:"review,omitempty"`     // what the human is shown (diff path, argv)
	Supersedes  string    `json:"supersedes,omitempty"` // plans: the plan this one replaced
	Summary     string    `json:"summary,omitempty"`    // plans: what `plan complete` recorded
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	DecidedAt   time.Time `json:"decidedAt,omitzero"`
}

// Resume is the exact call an agent issues after approval.
type Resume struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// Command is the same call as an aw command line, for an agent that
	// runs aw in a shell rather than through MCP.
	Command string `json:"command,omitempty"`
}

// CommandLine spells a resume call as an aw command line. The dispatch
// table, which knows every action's command-line form, sets it.
var CommandLine func(Resume) string

// State is .agentic/approvals/state.json.
type State struct {
	Records []Record `json:"records"`
}

// StatePath is where the records live.
func StatePath(ws *workspace.Workspace) string { return ws.Store.Path("approvals", "state.json") }

// Load reads the records, applying expiry in memory (the file is rewritten
// only by deciding actions, under the store lock).
func Load(ws *workspace.Workspace, now time.Time) (*State, error) {
	var s State
	if _, err := ws.Store.ReadJSON(StatePath(ws), &s); err != nil {
		return nil, err
	}
	s.expire(now)
	return &s, nil
}

func (s *State) expire(now time.Time) {
	for i := range s.Records {
		r := &s.Records[i]
		switch r.Status {
		case Pending, Approved, Denied:
			if !r.ExpiresAt.IsZero() && now.After(r.ExpiresAt) {
				r.Status = Expired
			}
		}
	}
}

// Newest returns the records matching keep, newest first.
func (s *State) Newest(keep func(*Record) bool) []Record {
	var out []Record
	for i := range s.Records {
		if keep(&s.Records[i]) {
			out = append(out, s.Records[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out
}

// PendingApprovals are pending non-plan records, newest first.
func (s *State) PendingApprovals() []Record {
	return s.Newest(func(r *Record) bool { return r.Kind != "plan" && r.Status == Pending })
}

// Plan returns the newest plan with the given status, or nil.
func (s *State) Plan(status string) *Record {
	plans := s.Newest(func(r *Record) bool { return r.Kind == "plan" && r.Status == status })
	if len(plans) == 0 {
		return nil
	}
	return &plans[0]
}
