package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// MaxRecords is how many approval and plan records are kept.
const MaxRecords = 300

// Permission modes: 0 Manual stages every mutating call, 1 Plan needs an
// approved plan, 2 Auto runs.
const (
	Manual = 0
	Plan   = 1
	Auto   = 2
)

// Operation is what a gated action asks to do, normalized so that the same
// call against the same files always hashes the same.
type Operation struct {
	Kind  string // transaction, command, vcs, browser, web, agent
	Title string // "Commit tx_…"
	// Hash is the SHA-256 of the normalized operation (Hash() builds it);
	// for a transaction it covers the operations and the before-hash of
	// every file they touch.
	Hash        string
	Destructive bool
	// Refusal names what made the operation destructive and the
	// non-destructive alternative; shown when allowDestructiveEdits is off.
	Refusal string
	Resume  Resume
	// Review is what a human deciding the record is shown: the path of a
	// transaction's diff, a command's argv.
	Review string
}

// Hash returns the hex SHA-256 of v's canonical JSON form.
func Hash(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // operations are plain data
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Decision is the gate's answer for one call.
type Decision struct {
	// Run is true when the action may run now.
	Run bool
	// Approval is the approved record that let it run (Manual mode); the
	// caller consumes it once the mutation succeeded.
	Approval string
	// Staged is set when the call was staged for a human (Manual mode).
	Staged *Staged
}

// Staged is the data every pending-approval result carries (status, mode,
// approval), whatever else its data holds.
type Staged struct {
	Status   string       `json:"status"`
	Mode     string       `json:"mode"`
	Approval StagedRecord `json:"approval"`
	Fresh    bool         `json:"-"` // false when an identical pending record was returned
}

// StagedRecord is data.approval of a staged result.
type StagedRecord struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Destructive bool   `json:"destructive"`
	Resume      Resume `json:"resume"`
}

// PendingApproval marks the envelope for exit code 3.
func (s *Staged) PendingApproval() bool { return true }

// TitleCap bounds an approval's title.
const TitleCap = 1000

// Clock is the gate's time source. The shipped binary always uses the real
// clock: nothing a caller controls may move it, or a caller could expire a
// denial. Engine tests replace it.
var Clock = time.Now

// Check decides whether op runs, is staged or is refused, by mode. The
// destructive check comes first, in every mode, before any approval is
// considered.
func Check(ws *workspace.Workspace, op Operation) (Decision, error) {
	// What a human decides must fit on the screen that shows it: a title
	// is clipped, and a call whose arguments would not fit inline in the
	// staged envelope is refused (the resume call is repeated verbatim, as
	// a tool call and as a command line, in data and summary).
	op.Title = envelope.Clip(op.Title, TitleCap)
	if raw, _ := json.Marshal(op.Resume.Arguments); len(raw) > ws.Settings.MaxToolResultChars/4 {
		return Decision{}, envelope.Errorf(envelope.InvalidInput,
			"the arguments of this call are %d bytes, more than a quarter of maxToolResultChars (%d): too large for a human to review inline; shorten them (put long text in a file the call reads)", len(raw), ws.Settings.MaxToolResultChars).With("bytes", len(raw))
	}
	if op.Destructive && !ws.Settings.AllowDestructiveEdits {
		return Decision{}, envelope.Errorf(envelope.ProtectedPath,
			"%s is destructive: %s. Destructive operations need the allowDestructiveEdits setting, which is off; a human can turn it on with `aw config set allowDestructiveEdits true`", op.Title, op.Refusal).With("setting", "allowDestructiveEdits")
	}
	if ws.Settings.PermissionMode == Manual && !slices.Contains(ws.Grants, op.Kind) {
		return stage(ws, op) // it looks for a denial under the lock
	}
	s, err := Load(ws, Clock())
	if err != nil {
		return Decision{}, err
	}
	// A denial binds in every mode: neither an approved plan nor Auto lets
	// the operation the human refused run unchanged.
	if r := s.denial(op.Hash); r != nil {
		return Decision{}, deniedErr(r)
	}
	switch ws.Settings.PermissionMode {
	case Auto, Manual: // Manual here: a kind the approved run was granted
		return Decision{Run: true}, nil
	case Plan:
		if p := s.Plan(Approved); p != nil {
			return Decision{Run: true}, nil
		}
		msg := "Plan mode: mutating calls need an approved plan. Propose one with `aw plan propose` (workspace_plan action propose), then stop and wait for the user to /accept it"
		if p := s.Plan(Pending); p != nil {
			msg = fmt.Sprintf("Plan mode: plan %s is still waiting for the user's decision; stop and wait for /accept %s (nothing runs until then)", p.ID, p.ID)
		}
		return Decision{}, envelope.Errorf(envelope.ApprovalRequired, "%s", msg)
	}
	return stage(ws, op)
}

// denial is the live denial of the operation with this hash, if any.
func (s *State) denial(hash string) *Record {
	for i := len(s.Records) - 1; i >= 0; i-- {
		if r := &s.Records[i]; r.Kind != "plan" && r.Hash == hash && r.Status == Denied {
			return r
		}
	}
	return nil
}

// deniedErr is APPROVAL_DENIED with the human's reason, so the agent
// learns why without another call.
func deniedErr(r *Record) error {
	why := ""
	if r.Note != "" {
		why = fmt.Sprintf(", saying %q", r.Note)
	}
	e := envelope.Errorf(envelope.ApprovalDenied,
		"the user denied this exact operation (%s)%s; do not re-issue it unchanged: change it to address the reason, or ask the user", r.ID, why).With("approvalId", r.ID)
	if r.Note != "" {
		e = e.With("userReason", r.Note)
	}
	return e
}

// stage is Manual mode: an approved identical operation runs, a denied one
// is refused, a pending one is returned as it is, anything else is staged.
func stage(ws *workspace.Workspace, op Operation) (Decision, error) {
	var d Decision
	var denied *Record
	err := update(ws, func(s *State, now time.Time) error {
		for i := len(s.Records) - 1; i >= 0; i-- {
			r := &s.Records[i]
			if r.Kind == "plan" || r.Hash != op.Hash {
				continue
			}
			switch r.Status {
			case Approved:
				// Claimed here, under the store lock: identical calls
				// racing each other must not all find it approved and
				// all run. The caller's Consume is then a no-op.
				r.Status, r.DecidedAt = Consumed, now
				d = Decision{Run: true, Approval: r.ID}
				return nil
			case Denied:
				rec := *r // a copy: prune may move the records
				denied = &rec
				return nil
			case Pending:
				d = Decision{Staged: staged(r, false)}
				return nil
			}
		}
		r := Record{
			ID: store.NewID("approval"), Kind: op.Kind, Status: Pending, Title: op.Title, Hash: op.Hash,
			Destructive: op.Destructive, Resume: &op.Resume, Review: op.Review,
			CreatedAt: now, ExpiresAt: now.Add(Lifetime),
		}
		s.Records = append(s.Records, r)
		d = Decision{Staged: staged(&r, true)}
		return nil
	})
	if err != nil {
		return Decision{}, err
	}
	if denied != nil {
		return Decision{}, deniedErr(denied)
	}
	return d, nil
}

func staged(r *Record, fresh bool) *Staged {
	resume := *r.Resume
	if resume.Command == "" && CommandLine != nil {
		resume.Command = CommandLine(resume)
	}
	return &Staged{Status: "pending_approval", Mode: "manual", Fresh: fresh, Approval: StagedRecord{
		ID: r.ID, Kind: r.Kind, Title: r.Title, Destructive: r.Destructive, Resume: resume,
	}}
}

// Consume marks an approval used once its mutation succeeded.
func Consume(ws *workspace.Workspace, id string) error {
	if id == "" {
		return nil
	}
	return update(ws, func(s *State, now time.Time) error {
		for i := range s.Records {
			if s.Records[i].ID == id && s.Records[i].Status == Approved {
				s.Records[i].Status = Consumed
				s.Records[i].DecidedAt = now
			}
		}
		return nil
	})
}

// StagedEnvelope builds the result of a staged call: the summary spells out
// who decides and the exact resume call, and the ids go in facts, which a
// compressor keeps.
func StagedEnvelope(st *Staged, mode int) envelope.Envelope {
	a := st.Approval
	resume, _ := json.Marshal(a.Resume.Arguments)
	summary := fmt.Sprintf("Awaiting approval %s: %s. The user must reply /accept %s (or /deny %s <reason>), or run `aw approval accept %s` in their terminal. After approval, call %s with %s",
		a.ID, a.Title, a.ID, a.ID, a.ID, a.Resume.Tool, resume)
	if a.Resume.Command != "" {
		summary += fmt.Sprintf(" (on the command line: `%s`)", a.Resume.Command)
	}
	summary += "."
	env := envelope.New("", summary, st)
	env.Retention.Importance = envelope.Critical
	env.Fact("approval %s pending: %s", a.ID, a.Title)
	env.Fact("permission mode %s (%d)", workspace.Title(workspace.ModeName(mode)), mode)
	return env
}

// update runs a read-modify-write of the records under the store lock,
// materialising expiry and keeping at most MaxRecords.
func update(ws *workspace.Workspace, fn func(s *State, now time.Time) error) error {
	return store.Update(ws.Store, StatePath(ws), func(s *State) error {
		now := Clock()
		s.expire(now)
		if err := fn(s, now); err != nil {
			return err
		}
		s.prune()
		return nil
	})
}

// prune keeps MaxRecords: the oldest terminal records go first, then the
// oldest pending ones, then approved ones; denials go last. Only a human
// makes an approval or a denial, while an agent can stage as many pending
// records as it likes: ranked the other way, staging 300 calls would flush
// a denial and let the denied call be staged afresh.
func (s *State) prune() {
	if len(s.Records) <= MaxRecords {
		return
	}
	rank := func(r *Record) int {
		switch r.Status {
		case Consumed, Completed, Superseded, Expired:
			return 0
		case Pending:
			return 1
		case Approved:
			return 2
		}
		return 3 // denied
	}
	order := make([]int, len(s.Records))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := &s.Records[order[a]], &s.Records[order[b]]
		if rank(ra) != rank(rb) {
			return rank(ra) < rank(rb)
		}
		return ra.CreatedAt.Before(rb.CreatedAt)
	})
	drop := map[int]bool{}
	for _, i := range order[:len(s.Records)-MaxRecords] {
		drop[i] = true
	}
	kept := s.Records[:0]
	for i, r := range s.Records {
		if !drop[i] {
			kept = append(kept, r)
		}
	}
	s.Records = kept
}

// clip shortens a title to n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimRight(envelope.Clip(s, n-3), "…") + "…"
}
