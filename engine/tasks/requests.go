package tasks

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// The request types are the tool's JSON arguments (snake_case), as MCP and
// --input send them.

// ItemSpec is one item of a create or add call.
type ItemSpec struct {
	Text     string `json:"text"`
	Status   string `json:"status,omitempty"`
	Priority string `json:"priority,omitempty"`
	Details  string `json:"details,omitempty"`
	// DependsOn holds item_ ids of the board or 1-based positions of this call.
	DependsOn []string `json:"depends_on,omitempty"`
}

// CreateRequest makes a board.
type CreateRequest struct {
	Title string     `json:"title"`
	Items []ItemSpec `json:"items,omitempty"`
}

// ListRequest lists boards.
type ListRequest struct {
	IncludeArchived bool `json:"include_archived,omitempty"`
	Limit           int  `json:"limit,omitempty"`
}

// ShowRequest shows a board, or one of its checkpoints.
type ShowRequest struct {
	BoardID      string `json:"board_id"`
	CheckpointID string `json:"checkpoint_id,omitempty"`
}

// BoardRequest names a board (next, archive, reopen).
type BoardRequest struct {
	BoardID string `json:"board_id"`
}

// AddRequest appends items to a board.
type AddRequest struct {
	BoardID string     `json:"board_id"`
	Items   []ItemSpec `json:"items"`
}

// UpdateRequest patches one item. Absent fields stay as they are;
// depends_on replaces the list (item_ ids only); evidence is appended.
type UpdateRequest struct {
	BoardID   string    `json:"board_id"`
	ItemID    string    `json:"item_id"`
	Text      *string   `json:"text,omitempty"`
	Status    *string   `json:"status,omitempty"`
	Priority  *string   `json:"priority,omitempty"`
	Details   *string   `json:"details,omitempty"`
	DependsOn *[]string `json:"depends_on,omitempty"`
	Evidence  Strings   `json:"evidence,omitempty"`
}

// RemoveRequest removes one item.
type RemoveRequest struct {
	BoardID string `json:"board_id"`
	ItemID  string `json:"item_id"`
	// Detach drops the item from the depends_on of items that name it;
	// without it, remove refuses while other items depend on the item.
	Detach bool `json:"detach,omitempty"`
}

// NoteRequest adds a note to a board, optionally about one item.
type NoteRequest struct {
	BoardID string `json:"board_id"`
	ItemID  string `json:"item_id,omitempty"`
	Text    string `json:"text"`
}

// CheckpointRequest records a snapshot of the board's items.
type CheckpointRequest struct {
	BoardID string `json:"board_id"`
	Label   string `json:"label,omitempty"`
}

// Strings is a list that also accepts a single string in JSON, so
// "evidence": "tests pass" works as well as ["tests pass"].
type Strings []string

// UnmarshalJSON accepts a string or an array of strings.
func (s *Strings) UnmarshalJSON(raw []byte) error {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		*s = Strings{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return envelope.Errorf(envelope.InvalidInput, "evidence must be a string or an array of strings")
	}
	*s = many
	return nil
}

func checkText(field string, s string, max int, required bool) (string, error) {
	t := strings.TrimSpace(s)
	if required && t == "" {
		return "", envelope.Errorf(envelope.InvalidInput, "%s is required and must not be blank", field).With("field", field)
	}
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return "", envelope.Errorf(envelope.InvalidInput, "%s is not valid text (invalid UTF-8 or a NUL byte)", field).With("field", field)
	}
	if utf8.RuneCountInString(s) > max {
		return "", envelope.Errorf(envelope.InvalidInput, "%s is %d characters; at most %d are allowed: move the rest into details or a note", field, utf8.RuneCountInString(s), max).With("field", field)
	}
	return t, nil
}

func checkStatus(field, s string) (string, error) {
	if !slices.Contains(Statuses, s) {
		return "", envelope.Errorf(envelope.InvalidInput, "%s %q is not one of %s", field, s, strings.Join(Statuses, ", ")).With("field", field)
	}
	return s, nil
}

func checkPriority(field, s string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(s))
	if !slices.Contains(Priorities, p) {
		return "", envelope.Errorf(envelope.InvalidInput, "%s %q is not one of high, medium, low", field, s).With("field", field)
	}
	return p, nil
}

func priorityRank(p string) int {
	if i := slices.Index(Priorities, p); i >= 0 {
		return i
	}
	return len(Priorities)
}
