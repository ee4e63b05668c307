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
	Text     string `json:"text" doc:"what is to be done, one line, at most 2000 characters"`
	Status   string `json:"status,omitempty" doc:"its state; default pending" enum:"pending,in_progress,completed,blocked,cancelled"`
	Priority string `json:"priority,omitempty" doc:"its priority; default medium" enum:"high,medium,low"`
	Details  string `json:"details,omitempty" doc:"longer description, acceptance criteria, at most 20000 characters"`
	// DependsOn holds item_ ids of the board or 1-based positions of this call.
	DependsOn []string `json:"depends_on,omitempty" doc:"items that must be completed first: item_ ids of the board, or 1-based positions of the items in this call ('1')"`
}

// CreateRequest makes a board.
type CreateRequest struct {
	Title string     `json:"title" doc:"the board title, at most 200 characters"`
	Items []ItemSpec `json:"items,omitempty" doc:"its first items, at most 200 per call (1000 per board)"`
}

// ListRequest lists boards.
type ListRequest struct {
	IncludeArchived bool `json:"include_archived,omitempty" doc:"include archived boards; default false"`
	Limit           int  `json:"limit,omitempty" doc:"most boards returned, newest first, 1 to 200; default 50"`
}

// ShowRequest shows a board, or one of its checkpoints.
type ShowRequest struct {
	BoardID      string `json:"board_id" doc:"the board_ id (a unique prefix works)"`
	CheckpointID string `json:"checkpoint_id,omitempty" doc:"show this checkpoint_ snapshot of the board instead of its current items"`
}

// BoardRequest names a board (next, archive, reopen).
type BoardRequest struct {
	BoardID string `json:"board_id" doc:"the board_ id (a unique prefix works)"`
}

// AddRequest appends items to a board.
type AddRequest struct {
	BoardID string     `json:"board_id" doc:"the board_ id (a unique prefix works)"`
	Items   []ItemSpec `json:"items" doc:"the items to append, 1 to 200 per call (1000 per board)"`
}

// UpdateRequest patches one item. Absent fields stay as they are;
// depends_on replaces the list (item_ ids only); evidence is appended.
type UpdateRequest struct {
	BoardID   string    `json:"board_id" doc:"the board_ id (a unique prefix works)"`
	ItemID    string    `json:"item_id" doc:"the item_ id"`
	Text      *string   `json:"text,omitempty" doc:"new text, at most 2000 characters; absent: unchanged"`
	Status    *string   `json:"status,omitempty" doc:"new status; absent: unchanged" enum:"pending,in_progress,completed,blocked,cancelled"`
	Priority  *string   `json:"priority,omitempty" doc:"new priority; absent: unchanged" enum:"high,medium,low"`
	Details   *string   `json:"details,omitempty" doc:"new details, at most 20000 characters; absent: unchanged"`
	DependsOn *[]string `json:"depends_on,omitempty" doc:"replaces the whole list: item_ ids of this board that must be completed first; [] clears it"`
	Evidence  Strings   `json:"evidence,omitempty" doc:"proof the item is done (a test run, a commit): appended, at most 100 entries per item"`
}

// RemoveRequest removes one item.
type RemoveRequest struct {
	BoardID string `json:"board_id" doc:"the board_ id (a unique prefix works)"`
	ItemID  string `json:"item_id" doc:"the item_ id"`
	// Detach drops the item from the depends_on of items that name it;
	// without it, remove refuses while other items depend on the item.
	Detach bool `json:"detach,omitempty" doc:"also drop the item from the depends_on of the items that name it; default false: refused while others depend on it"`
}

// NoteRequest adds a note to a board, optionally about one item.
type NoteRequest struct {
	BoardID string `json:"board_id" doc:"the board_ id (a unique prefix works)"`
	ItemID  string `json:"item_id,omitempty" doc:"the item_ id the note is about; default: the board as a whole"`
	Text    string `json:"text" doc:"the note, at most 2000 characters (a board keeps its latest 500)"`
}

// CheckpointRequest records a snapshot of the board's items.
type CheckpointRequest struct {
	BoardID string `json:"board_id" doc:"the board_ id (a unique prefix works)"`
	Label   string `json:"label,omitempty" doc:"what the snapshot marks, at most 200 characters (a board keeps its latest 100)"`
}

// Strings is a list that also accepts a single string in JSON, so
// "evidence": "tests pass" works as well as ["tests pass"].
type Strings []string

// JSONSchema is the shape UnmarshalJSON accepts (engine/schema): one string or an array of strings.
func (Strings) JSONSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}
}

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
