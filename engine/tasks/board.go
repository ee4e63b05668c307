// Package tasks owns the To-Do boards (workspace_tasks):
// .agentic/tasks/<board_id>/state.json and its checkpoint snapshots. Boards
// are store state, never gated; every change is a read-modify-write under
// the store lock (store.Update), so concurrent aw processes never lose an
// update. It never prints and never touches workspace files.
//
// Decisions:
//   - priority is high, medium or low (default medium); next orders by it,
//     then by board order.
//   - remove refuses an item other items depend on, naming them; with
//     detach (--detach) it removes the item and drops it from their
//     depends_on instead.
//   - an archived board is read-only until reopen.
package tasks

import (
	"path/filepath"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Item statuses; any other value is INVALID_INPUT.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
	Blocked    = "blocked"
	Cancelled  = "cancelled"
)

// Statuses lists the item statuses in the order summaries count them.
var Statuses = []string{Pending, InProgress, Completed, Blocked, Cancelled}

// Priorities, highest first.
var Priorities = []string{"high", "medium", "low"}

// DefaultPriority is an item's priority when none is given.
const DefaultPriority = "medium"

// Board statuses.
const (
	Active   = "active"
	Archived = "archived"
)

// Limits keep a board a file an agent can read back whole.
const (
	MaxItems        = 1000 // per board
	MaxItemsPerCall = 200
	MaxTitle        = 200
	MaxText         = 2000
	MaxDetails      = 20000
	MaxEvidence     = 100 // entries per item
	MaxNotes        = 500 // per board; the oldest are dropped first
	MaxCheckpoints  = 100 // per board; the oldest snapshots are dropped first
)

// Board is .agentic/tasks/<board_id>/state.json. id and title are read by
// inspect changes; keep them.
type Board struct {
	ID          string       `json:"id"`
	Title       string       `json:"title"`
	Status      string       `json:"status"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
	ArchivedAt  time.Time    `json:"archivedAt,omitzero"`
	Items       []Item       `json:"items"`
	Notes       []Note       `json:"notes"`
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// Item is one task; scripts rely on its field names (tasks.show).
type Item struct {
	ID        string    `json:"id"`
	Text      string    `json:"text"`
	Status    string    `json:"status"`
	Priority  string    `json:"priority"`
	Details   string    `json:"details"`
	DependsOn []string  `json:"dependsOn"`
	Evidence  []string  `json:"evidence"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Note is a dated remark on the board, optionally about one item.
type Note struct {
	At     time.Time `json:"at"`
	ItemID string    `json:"itemId,omitempty"`
	Text   string    `json:"text"`
}

// Checkpoint indexes one snapshot; the items are in Path.
type Checkpoint struct {
	ID        string         `json:"id"`
	Label     string         `json:"label"`
	CreatedAt time.Time      `json:"createdAt"`
	Path      string         `json:"path"`
	Counts    map[string]int `json:"counts"`
}

// Snapshot is .agentic/tasks/<board_id>/checkpoints/<checkpoint_id>.json.
type Snapshot struct {
	ID        string    `json:"id"`
	BoardID   string    `json:"boardId"`
	Label     string    `json:"label"`
	CreatedAt time.Time `json:"createdAt"`
	Items     []Item    `json:"items"`
}

func boardDir(ws *workspace.Workspace, id string) string { return ws.Store.Path("tasks", id) }

func boardPath(ws *workspace.Workspace, id string) string {
	return filepath.Join(boardDir(ws, id), "state.json")
}

func snapshotPath(ws *workspace.Workspace, boardID, id string) string {
	return filepath.Join(boardDir(ws, boardID), "checkpoints", id+".json")
}

// checkBoardID validates the shape before the id becomes a path.
func checkBoardID(id string) error {
	if id == "" {
		return envelope.Errorf(envelope.InvalidInput, "board_id is required: `aw tasks list` shows the boards")
	}
	if !store.ValidID(id, "board") {
		return envelope.Errorf(envelope.InvalidInput, "board_id %q is not a board id (board_…): `aw tasks list` shows the boards", id).With("board_id", id)
	}
	return nil
}

// update runs fn on the board under the store lock; a missing board is
// NOT_FOUND and is never created by it.
func update(ws *workspace.Workspace, id string, fn func(b *Board, now time.Time) error) (*Board, error) {
	if err := checkBoardID(id); err != nil {
		return nil, err
	}
	var out Board
	err := store.Update(ws.Store, boardPath(ws, id), func(b *Board) error {
		if b.ID == "" {
			return notFound(id)
		}
		now := time.Now().UTC()
		if err := fn(b, now); err != nil {
			return err
		}
		b.UpdatedAt = now
		out = *b
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// mutate is update for changes an archived board refuses.
func mutate(ws *workspace.Workspace, id string, fn func(b *Board, now time.Time) error) (*Board, error) {
	return update(ws, id, func(b *Board, now time.Time) error {
		if b.Status == Archived {
			return envelope.Errorf(envelope.TransactionState,
				"board %s is archived and read-only: `aw tasks reopen %s` first, then retry", b.ID, b.ID).With("board_id", b.ID)
		}
		return fn(b, now)
	})
}

// load reads a board without the lock (a single atomic file: a reader sees
// the old state or the new one).
func load(ws *workspace.Workspace, id string) (*Board, error) {
	if err := checkBoardID(id); err != nil {
		return nil, err
	}
	var b Board
	found, err := ws.Store.ReadJSON(boardPath(ws, id), &b)
	if err != nil {
		return nil, err
	}
	if !found || b.ID == "" {
		return nil, notFound(id)
	}
	b.normalize()
	return &b, nil
}

// Load reads a board as it is now: a sub-agent's run tied to a board shows
// it in every pass's brief.
func Load(ws *workspace.Workspace, id string) (*Board, error) { return load(ws, id) }

// CountLine is the board's items counted by status ("5 items: 2 pending,
// 3 completed").
func (b *Board) CountLine() string { return countLine(b) }

func notFound(id string) error {
	return envelope.Errorf(envelope.NotFound, "no task board %s: `aw tasks list --all` shows the boards (archived ones too)", id).With("board_id", id)
}

// normalize gives nil lists their empty JSON form.
func (b *Board) normalize() {
	if b.Items == nil {
		b.Items = []Item{}
	}
	if b.Notes == nil {
		b.Notes = []Note{}
	}
	if b.Checkpoints == nil {
		b.Checkpoints = []Checkpoint{}
	}
	for i := range b.Items {
		b.Items[i].normalize()
	}
}

func (it *Item) normalize() {
	if it.DependsOn == nil {
		it.DependsOn = []string{}
	}
	if it.Evidence == nil {
		it.Evidence = []string{}
	}
}

func (b *Board) index(id string) int {
	for i := range b.Items {
		if b.Items[i].ID == id {
			return i
		}
	}
	return -1
}

func (b *Board) counts() map[string]int {
	c := map[string]int{}
	for _, s := range Statuses {
		c[s] = 0
	}
	for _, it := range b.Items {
		c[it.Status]++
	}
	return c
}
