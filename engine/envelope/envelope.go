// Package envelope owns the agentic-workspace/v1 result shape that every aw
// action returns, its error codes, and the rule that keeps large results out
// of the envelope (artifacts). It never prints and never decides policy.
package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Protocol is the value of every envelope's protocol field.
const Protocol = "agentic-workspace/v1"

// Envelope is the one result shape of every action, agentic-workspace/v1;
// its field names are fixed.
type Envelope struct {
	Protocol  string     `json:"protocol"`
	OK        bool       `json:"ok"`
	Operation string     `json:"operation"`
	Summary   string     `json:"summary"`
	Retention Retention  `json:"retention"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
	Data      any        `json:"data,omitempty"`
	Error     *Error     `json:"error,omitempty"`
}

// Retention tells a context compressor what to keep when the transcript is
// compacted: facts are kept, the omit_when_summarizing paths dropped.
type Retention struct {
	Importance string   `json:"importance"`
	Facts      []string `json:"facts,omitempty"`
	Omit       []string `json:"omit_when_summarizing,omitempty"`
}

// Importance levels.
const (
	Low      = "low"
	Normal   = "normal"
	High     = "high"
	Critical = "critical"
)

// Artifact is a file under .agentic/artifacts/ (or another store path) that
// holds what did not fit inline.
type Artifact struct {
	Kind        string `json:"kind"`
	Path        string `json:"path"`
	SHA256      string `json:"sha256"`
	Bytes       int64  `json:"bytes"`
	Description string `json:"description,omitempty"`
}

// Code is one of aw's error codes; callers branch on them, so none is renamed.
type Code string

// The error codes. Every message built with them says what to do next.
const (
	InvalidInput     Code = "INVALID_INPUT"
	NotFound         Code = "NOT_FOUND"
	ApprovalRequired Code = "APPROVAL_REQUIRED"
	ApprovalDenied   Code = "APPROVAL_DENIED"
	ProtectedPath    Code = "PROTECTED_PATH"
	PathEscape       Code = "PATH_ESCAPE"
	TransactionState Code = "TRANSACTION_STATE"
	EditConflict     Code = "EDIT_CONFLICT"
	CommandDenied    Code = "COMMAND_DENIED"
	ExecutableDenied Code = "EXECUTABLE_DENIED"
	ToolDisabled     Code = "TOOL_DISABLED"
	AgentDisabled    Code = "AGENT_DISABLED"
	HumanRequired    Code = "HUMAN_REQUIRED"
	Timeout          Code = "TIMEOUT"
	NetworkError     Code = "NETWORK_ERROR"
	VCSError         Code = "VCS_ERROR"
	Internal         Code = "INTERNAL"
)

// Codes is every error code with what it means, in the order the
// reference lists them.
var Codes = []struct {
	Code    Code
	Meaning string
}{
	{InvalidInput, "the request is malformed or a value is out of range; the message names the argument and its limit (exit 2)"},
	{NotFound, "the file, transaction, job, approval, note or record named does not exist"},
	{ApprovalRequired, "the action needs an approval the gate does not hold (Plan mode without an approved plan, a stale approval)"},
	{ApprovalDenied, "a human denied this exact operation; details.userReason says why, and the denial holds until it expires"},
	{ProtectedPath, "the path is protected (.git, .agentic, protectedPatterns): readable, never writable through aw"},
	{PathEscape, "the path is outside the workspace jail or matches denyPaths"},
	{TransactionState, "the transaction, approval, plan, job or record is not in a state that allows the action (committing a transaction that is not planned, accepting an approval that is not pending, writing an archived research project)"},
	{EditConflict, "the edit does not fit the file as it is: details.reason is no-match, not-unique, stale, target-exists, ..."},
	{CommandDenied, "the command policy refused the line or argv: details.reason names the rule (metacharacter, not-allowed, denied-executable, denied-pattern, nested-command, unsupported-syntax, path-escape, sandbox-unavailable, ...)"},
	{ExecutableDenied, "reserved for an executable that version control would start and the policy refuses; aw's git (go-git) starts none today"},
	{ToolDisabled, "the tool is switched off by a setting (details name the setting and the value that turns it on) or is not built yet"},
	{AgentDisabled, "the action needs sub-agents, which are off or not configured"},
	{HumanRequired, "a human verb was called without a human at a controlling terminal"},
	{Timeout, "the action ran out of its time limit"},
	{NetworkError, "the network refused or failed (including addresses aw's egress guard refuses)"},
	{VCSError, "the repository operation failed (a conflict, a missing ref, a dirty tree)"},
	{Internal, "a fault of aw or of the machine (disk full, permissions); the message says what failed"},
}

// Error is both the envelope's error object and a Go error, so engine code
// returns it like any other error and the front end turns it into a result.
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// EchoCap bounds each caller value an error message or detail repeats (a
// name, a path, a search text): an oversized input is named by its start,
// so a refusal stays small whatever the caller sent.
const EchoCap = 800

// messageCap bounds a whole error message.
const messageCap = 4000

// Errorf builds an *Error. The message must say what happened and what to do.
// String and error arguments longer than EchoCap are clipped.
func Errorf(code Code, format string, args ...any) *Error {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = clip(v, EchoCap)
		case error:
			if m := v.Error(); len(m) > EchoCap {
				args[i] = clip(m, EchoCap)
			}
		}
	}
	return &Error{Code: code, Message: clip(fmt.Sprintf(format, args...), messageCap)}
}

// With adds one detail and returns the error for chaining. A string longer
// than EchoCap is clipped.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	if s, ok := value.(string); ok {
		value = clip(s, EchoCap)
	}
	e.Details[key] = value
	return e
}

// CodeOf returns the code of err, INTERNAL for errors that are not *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// New starts a successful envelope.
func New(operation, summary string, data any) Envelope {
	return Envelope{
		Protocol:  Protocol,
		OK:        true,
		Operation: operation,
		Summary:   summary,
		Retention: Retention{Importance: Normal},
		Data:      data,
	}
}

// Fail turns any error into a failed envelope for operation. Errors that are
// not *Error become INTERNAL: they are bugs or environment failures, and the
// message still tells the caller what to try.
func Fail(operation string, err error) Envelope {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: Internal, Message: clip(err.Error(), messageCap) + " (an internal error: retry once; if it persists, report it with the command that caused it)"}
	}
	return Envelope{
		Protocol:  Protocol,
		OK:        false,
		Operation: operation,
		Summary:   fmt.Sprintf("%s failed: %s", operation, e.Message),
		Retention: Retention{Importance: High, Facts: []string{string(e.Code) + ": " + clip(e.Message, 300)}},
		Error:     e,
	}
}

// Fact appends retention facts.
func (e *Envelope) Fact(format string, args ...any) {
	e.Retention.Facts = append(e.Retention.Facts, fmt.Sprintf(format, args...))
}

// Warn records problems that did not stop the call (an ignored user config
// or token file) where a harness sees them: in retention.facts and as
// data.warnings (when data is an object, or there is none).
func (e *Envelope) Warn(warnings []string) {
	if len(warnings) == 0 {
		return
	}
	for _, w := range warnings {
		e.Fact("warning: %s", w)
	}
	e.Data = warned{e.Data, warnings}
}

// warned is data with warnings added; it stays a pending approval when
// the data was one.
type warned struct {
	data     any
	warnings []string
}

// Payload is the action's own data, without warnings added by Warn.
func (e Envelope) Payload() any {
	if w, ok := e.Data.(warned); ok {
		return w.data
	}
	return e.Data
}

func (w warned) PendingApproval() bool {
	p, ok := w.data.(interface{ PendingApproval() bool })
	return ok && p.PendingApproval()
}

func (w warned) MarshalJSON() ([]byte, error) {
	list, err := json.Marshal(w.warnings)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(w.data)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case string(raw) == "null":
		return append(append([]byte(`{"warnings":`), list...), '}'), nil
	case len(raw) < 2 || raw[0] != '{':
		return raw, nil // not an object: the facts carry them
	case string(raw) == "{}":
		return append(append([]byte(`{"warnings":`), list...), '}'), nil
	}
	out := append([]byte(`{"warnings":`), list...)
	out = append(out, ',')
	return append(out, raw[1:]...), nil
}

// Omit declares data paths to drop when the transcript is compacted.
func (e *Envelope) Omit(paths ...string) {
	e.Retention.Omit = append(e.Retention.Omit, paths...)
}

// Pending reports whether the envelope is a staged, pending-approval result.
func (e Envelope) Pending() bool {
	m, ok := e.Data.(interface{ PendingApproval() bool })
	return ok && m.PendingApproval()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Clip shortens s to at most n bytes on a character boundary, marking the cut.
func Clip(s string, n int) string { return clip(s, n) }

// QuoteArgv spells an argv as a shell line a human can read and paste:
// an argument holding a space or a shell metacharacter is single-quoted.
func QuoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

// Limit applies a listing's limit argument: 0 means def; a value outside
// 1..max is INVALID_INPUT naming the range and the default.
func Limit(n, def, max int) (int, error) {
	if n == 0 {
		return def, nil
	}
	if n < 1 || n > max {
		return 0, Errorf(InvalidInput, "limit %d is out of range: use 1 to %d (default %d)", n, max, def).With("field", "limit")
	}
	return n, nil
}
