package tasks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// BoardView is the board in an envelope (tasks.show: board {id, title,
// items[] {id, text, status, priority, details, dependsOn, evidence}}, names
// scripts rely on), with its counts, notes and checkpoints.
type BoardView struct {
	ID          string         `json:"id"`
	Title       string         `json:"title"`
	Status      string         `json:"status"`
	Path        string         `json:"path"`
	Counts      map[string]int `json:"counts"`
	Items       []Item         `json:"items"`
	Notes       []Note         `json:"notes"`
	Checkpoints []Checkpoint   `json:"checkpoints"`
	CreatedAt   time.Time      `json:"createdAt"`
	UpdatedAt   time.Time      `json:"updatedAt"`
}

// BoardData is the data of create, add and show.
type BoardData struct {
	Board BoardView `json:"board"`
	// Added lists the ids minted by create/add, in the order of the call,
	// so position n of the call is added[n-1].
	Added []string `json:"added,omitempty"`
}

func view(ws *workspace.Workspace, b *Board) BoardView {
	b.normalize()
	return BoardView{ID: b.ID, Title: b.Title, Status: b.Status, Path: ws.Store.Rel(boardPath(ws, b.ID)),
		Counts: b.counts(), Items: b.Items, Notes: b.Notes, Checkpoints: b.Checkpoints,
		CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt}
}

// maxItemFacts caps the per-item facts; the rest is one `show` away.
const maxItemFacts = 50

// boardFacts keeps the board id, its counts and every item id with its
// status in retention.facts: they must survive compaction.
func boardFacts(env *envelope.Envelope, b *Board) {
	env.Fact("board %s %q (%s): %s", b.ID, envelope.Clip(b.Title, 80), b.Status, countLine(b))
	for i, it := range b.Items {
		if i == maxItemFacts {
			env.Fact("… %d more items: `aw tasks show %s` lists them", len(b.Items)-maxItemFacts, b.ID)
			break
		}
		env.Fact("%s %s %s: %s%s", it.ID, it.Status, it.Priority, envelope.Clip(it.Text, 60), depsFact(it))
	}
}

func depsFact(it Item) string {
	if len(it.DependsOn) == 0 {
		return ""
	}
	return " (after " + strings.Join(it.DependsOn, ", ") + ")"
}

func countLine(b *Board) string {
	c := b.counts()
	var parts []string
	for _, s := range Statuses {
		if c[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[s], s))
		}
	}
	if len(parts) == 0 {
		return "no items"
	}
	return fmt.Sprintf("%d items: %s", len(b.Items), strings.Join(parts, ", "))
}

// newItems validates the specs of a create/add call, mints their ids and
// resolves their dependencies against b (the board before the call).
func newItems(b *Board, specs []ItemSpec, now time.Time) ([]Item, error) {
	if len(specs) > MaxItemsPerCall {
		return nil, envelope.Errorf(envelope.InvalidInput, "%d items in one call; at most %d: split them over several add calls", len(specs), MaxItemsPerCall)
	}
	if len(b.Items)+len(specs) > MaxItems {
		return nil, envelope.Errorf(envelope.InvalidInput, "board %s would hold %d items; at most %d: remove finished items or start another board", b.ID, len(b.Items)+len(specs), MaxItems)
	}
	items := make([]Item, len(specs))
	ids := make([]string, len(specs))
	for i, spec := range specs {
		where := fmt.Sprintf("item %d", i+1)
		text, err := checkText(where+" text", spec.Text, MaxText, true)
		if err != nil {
			return nil, err
		}
		details, err := checkText(where+" details", spec.Details, MaxDetails, false)
		if err != nil {
			return nil, err
		}
		status, priority := Pending, DefaultPriority
		if spec.Status != "" {
			if status, err = checkStatus(where+" status", spec.Status); err != nil {
				return nil, err
			}
		}
		if spec.Priority != "" {
			if priority, err = checkPriority(where+" priority", spec.Priority); err != nil {
				return nil, err
			}
		}
		ids[i] = store.NewID("item")
		items[i] = Item{ID: ids[i], Text: text, Status: status, Priority: priority, Details: details,
			Evidence: []string{}, CreatedAt: now, UpdatedAt: now}
	}
	deps, err := resolveBatch(b, specs, ids)
	if err != nil {
		return nil, err
	}
	for i := range items {
		items[i].DependsOn = deps[i]
	}
	all := append(slices.Clone(b.Items), items...)
	if cycle := findCycle(all); cycle != nil {
		pos := map[string]int{}
		for i, id := range ids {
			pos[id] = i + 1
		}
		label := func(id string) string {
			if p, ok := pos[id]; ok {
				return fmt.Sprintf("item %d", p)
			}
			return id
		}
		ref := func(from, to string) string {
			p, ok := pos[from]
			if !ok {
				return to
			}
			for _, r := range specs[p-1].DependsOn {
				if r == to || (isPosition(r) && pos[to] > 0 && r == fmt.Sprint(pos[to])) {
					return r
				}
			}
			return to
		}
		return nil, cycleError(cycle, label, ref)
	}
	return items, nil
}

// Create makes a board with its first items.
func Create(ctx context.Context, ws *workspace.Workspace, req *CreateRequest) (envelope.Envelope, error) {
	title, err := checkText("title", req.Title, MaxTitle, true)
	if err != nil {
		return envelope.Envelope{}, err
	}
	now := time.Now().UTC()
	b := &Board{ID: store.NewID("board"), Title: title, Status: Active, CreatedAt: now, UpdatedAt: now}
	b.normalize()
	items, err := newItems(b, req.Items, now)
	if err != nil {
		return envelope.Envelope{}, err
	}
	b.Items = items
	err = store.Update(ws.Store, boardPath(ws, b.ID), func(s *Board) error { *s = *b; return nil })
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", fmt.Sprintf("Created board %s %q with %s.", b.ID, b.Title, countLine(b)), &BoardData{Board: view(ws, b), Added: ids(items)})
	env.Retention.Importance = envelope.High
	boardFacts(&env, b)
	env.Omit("data.board.items", "data.board.notes")
	return env, nil
}

func ids(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// Add appends items to a board; their depends_on may name the board's
// items by id or this call's items by position.
func Add(ctx context.Context, ws *workspace.Workspace, req *AddRequest) (envelope.Envelope, error) {
	if len(req.Items) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "add needs at least one item: pass items [{\"text\": …}] (or --item TEXT)")
	}
	var added []Item
	b, err := mutate(ws, req.BoardID, func(b *Board, now time.Time) error {
		items, err := newItems(b, req.Items, now)
		if err != nil {
			return err
		}
		added = items
		b.Items = append(b.Items, items...)
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", fmt.Sprintf("Added %d item(s) to board %s (%s): %s.", len(added), b.ID, countLine(b), strings.Join(ids(added), ", ")), &BoardData{Board: view(ws, b), Added: ids(added)})
	boardFacts(&env, b)
	env.Omit("data.board.items", "data.board.notes")
	return env, nil
}

// BoardEntry is one board in list.
type BoardEntry struct {
	ID        string         `json:"id"`
	Title     string         `json:"title"`
	Status    string         `json:"status"`
	ItemCount int            `json:"itemCount"`
	Counts    map[string]int `json:"counts"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Path      string         `json:"path"`
}

// ListData is the data of list.
type ListData struct {
	Boards   []BoardEntry `json:"boards"`
	Total    int          `json:"total"`
	Archived int          `json:"archived"`
}

// List lists boards, newest first; archived ones only when asked.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, 50, 200)
	if err != nil {
		return envelope.Envelope{}, err
	}
	entries, err := os.ReadDir(ws.Store.Path("tasks"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot list .agentic/tasks: %v; check its permissions", err)
	}
	d := &ListData{Boards: []BoardEntry{}}
	var all []BoardEntry
	for _, e := range entries {
		if !e.IsDir() || !store.ValidID(e.Name(), "board") {
			continue
		}
		var b Board
		found, err := ws.Store.ReadJSON(boardPath(ws, e.Name()), &b)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if !found || b.ID == "" {
			continue
		}
		if b.Status == Archived {
			d.Archived++
			if !req.IncludeArchived {
				continue
			}
		}
		all = append(all, BoardEntry{ID: b.ID, Title: b.Title, Status: b.Status, ItemCount: len(b.Items), Counts: b.counts(), UpdatedAt: b.UpdatedAt, Path: ws.Store.Rel(boardPath(ws, b.ID))})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID > all[j].ID })
	d.Total = len(all)
	if len(all) > limit {
		all = all[:limit]
	}
	d.Boards = append(d.Boards, all...)
	summary := fmt.Sprintf("%d task board(s)", d.Total)
	if len(d.Boards) < d.Total {
		summary += fmt.Sprintf(", showing the newest %d", len(d.Boards))
	}
	if d.Archived > 0 && !req.IncludeArchived {
		summary += fmt.Sprintf(" (%d archived hidden: --all shows them)", d.Archived)
	}
	env := envelope.New("", summary+".", d)
	env.Retention.Importance = envelope.Low
	for _, b := range d.Boards {
		env.Fact("board %s %q (%s): %d items, %d pending, %d completed", b.ID, envelope.Clip(b.Title, 60), b.Status, b.ItemCount, b.Counts[Pending], b.Counts[Completed])
	}
	return env, nil
}

// CheckpointData is the data of show with a checkpoint_id.
type CheckpointData struct {
	Board      BoardRef `json:"board"`
	Checkpoint Snapshot `json:"checkpoint"`
}

// BoardRef names the board a checkpoint belongs to.
type BoardRef struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Show returns a board, or the snapshot a checkpoint recorded.
func Show(ctx context.Context, ws *workspace.Workspace, req *ShowRequest) (envelope.Envelope, error) {
	b, err := load(ws, req.BoardID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if req.CheckpointID != "" {
		return showCheckpoint(ws, b, req.CheckpointID)
	}
	env := envelope.New("", fmt.Sprintf("Board %s %q (%s): %s.", b.ID, b.Title, b.Status, countLine(b)), &BoardData{Board: view(ws, b)})
	boardFacts(&env, b)
	env.Omit("data.board.items", "data.board.notes")
	return env, nil
}

func showCheckpoint(ws *workspace.Workspace, b *Board, id string) (envelope.Envelope, error) {
	if !store.ValidID(id, "checkpoint") {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "checkpoint_id %q is not a checkpoint id (checkpoint_…)", id).With("checkpoint_id", id)
	}
	var snap Snapshot
	found, err := ws.Store.ReadJSON(snapshotPath(ws, b.ID, id), &snap)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if !found {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "board %s has no checkpoint %s: `aw tasks show %s` lists its checkpoints", b.ID, id, b.ID).With("checkpoint_id", id)
	}
	d := &CheckpointData{Board: BoardRef{ID: b.ID, Title: b.Title}, Checkpoint: snap}
	env := envelope.New("", fmt.Sprintf("Checkpoint %s of board %s (%s, %d items).", id, b.ID, snap.CreatedAt.Format(time.RFC3339), len(snap.Items)), d)
	env.Fact("checkpoint %s of board %s: %q", id, b.ID, envelope.Clip(snap.Label, 80))
	env.Omit("data.checkpoint.items")
	return env, nil
}

// UpdateData is the data of update.
type UpdateData struct {
	BoardID  string   `json:"boardId"`
	Item     Item     `json:"item"`
	Changed  []string `json:"changed"`
	Warnings []string `json:"warnings,omitempty"`
}

// Update patches one item: text, status, priority, details, depends_on
// (replaced; item_ ids only) and evidence (appended).
func Update(ctx context.Context, ws *workspace.Workspace, req *UpdateRequest) (envelope.Envelope, error) {
	if req.ItemID == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "item_id is required: `aw tasks show BOARD` lists the item ids")
	}
	if req.Text == nil && req.Status == nil && req.Priority == nil && req.Details == nil && req.DependsOn == nil && len(req.Evidence) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "nothing to update: pass text, status, priority, details, depends_on or evidence")
	}
	d := &UpdateData{BoardID: req.BoardID, Changed: []string{}}
	b, err := mutate(ws, req.BoardID, func(b *Board, now time.Time) error {
		i := b.index(req.ItemID)
		if i < 0 {
			return itemNotFound(b, req.ItemID)
		}
		it := b.Items[i]
		it.normalize()
		set := func(field string, changed bool) {
			if changed {
				d.Changed = append(d.Changed, field)
			}
		}
		if req.Text != nil {
			t, err := checkText("text", *req.Text, MaxText, true)
			if err != nil {
				return err
			}
			set("text", t != it.Text)
			it.Text = t
		}
		if req.Status != nil {
			s, err := checkStatus("status", *req.Status)
			if err != nil {
				return err
			}
			set("status", s != it.Status)
			it.Status = s
		}
		if req.Priority != nil {
			p, err := checkPriority("priority", *req.Priority)
			if err != nil {
				return err
			}
			set("priority", p != it.Priority)
			it.Priority = p
		}
		if req.Details != nil {
			t, err := checkText("details", *req.Details, MaxDetails, false)
			if err != nil {
				return err
			}
			set("details", t != it.Details)
			it.Details = t
		}
		if req.DependsOn != nil {
			deps, err := resolveUpdate(b, it.ID, *req.DependsOn)
			if err != nil {
				return err
			}
			set("depends_on", !slices.Equal(deps, it.DependsOn))
			it.DependsOn = deps
			trial := slices.Clone(b.Items)
			trial[i] = it
			if cycle := findCycle(trial); cycle != nil {
				return cycleError(cycle, func(id string) string { return id }, func(from, to string) string { return to })
			}
		}
		for _, e := range req.Evidence {
			t, err := checkText("evidence", e, MaxText, true)
			if err != nil {
				return err
			}
			it.Evidence = append(it.Evidence, t)
		}
		if len(it.Evidence) > MaxEvidence {
			return envelope.Errorf(envelope.InvalidInput, "item %s would hold %d evidence entries; at most %d: summarise older evidence in details", it.ID, len(it.Evidence), MaxEvidence)
		}
		set("evidence", len(req.Evidence) > 0)
		if (it.Status == InProgress || it.Status == Completed) && len(d.Changed) > 0 {
			for _, dep := range it.DependsOn {
				if j := b.index(dep); j >= 0 && b.Items[j].Status != Completed {
					d.Warnings = append(d.Warnings, fmt.Sprintf("%s is %s while its dependency %s is %s", it.ID, it.Status, dep, b.Items[j].Status))
				}
			}
		}
		if len(d.Changed) > 0 {
			it.UpdatedAt = now
		}
		b.Items[i] = it
		d.Item = it
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("Updated %s on board %s: %s (now %s, %s).", d.Item.ID, b.ID, strings.Join(d.Changed, ", "), d.Item.Status, d.Item.Priority)
	if len(d.Changed) == 0 {
		summary = fmt.Sprintf("%s on board %s already had these values: nothing changed (%s, %s).", d.Item.ID, b.ID, d.Item.Status, d.Item.Priority)
	}
	if len(d.Warnings) > 0 {
		summary += " Warning: " + strings.Join(d.Warnings, "; ") + "."
	}
	env := envelope.New("", summary, d)
	env.Fact("board %s: %s", b.ID, countLine(b))
	env.Fact("%s %s %s: %s%s", d.Item.ID, d.Item.Status, d.Item.Priority, envelope.Clip(d.Item.Text, 60), depsFact(d.Item))
	return env, nil
}

func itemNotFound(b *Board, id string) error {
	return envelope.Errorf(envelope.NotFound, "board %s has no item %s: `aw tasks show %s` lists its items", b.ID, id, b.ID).With("item_id", id)
}

// RemoveData is the data of remove.
type RemoveData struct {
	BoardID      string   `json:"boardId"`
	Removed      Item     `json:"removed"`
	DetachedFrom []string `json:"detachedFrom"`
}

// Remove deletes one item. An item others depend on is refused, naming
// them, unless detach drops it from their depends_on.
func Remove(ctx context.Context, ws *workspace.Workspace, req *RemoveRequest) (envelope.Envelope, error) {
	if req.ItemID == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "item_id is required: `aw tasks show BOARD` lists the item ids")
	}
	d := &RemoveData{BoardID: req.BoardID, DetachedFrom: []string{}}
	b, err := mutate(ws, req.BoardID, func(b *Board, now time.Time) error {
		i := b.index(req.ItemID)
		if i < 0 {
			return itemNotFound(b, req.ItemID)
		}
		var dependents []string
		for _, it := range b.Items {
			if slices.Contains(it.DependsOn, req.ItemID) {
				dependents = append(dependents, it.ID)
			}
		}
		if len(dependents) > 0 && !req.Detach {
			return envelope.Errorf(envelope.InvalidInput,
				"%s cannot be removed: %s depend(s) on it. Update their depends_on first, mark %s cancelled instead, or remove with detach (--detach) to drop it from their dependencies", req.ItemID, strings.Join(dependents, ", "), req.ItemID).With("dependents", dependents)
		}
		for j := range b.Items {
			if k := slices.Index(b.Items[j].DependsOn, req.ItemID); k >= 0 {
				b.Items[j].DependsOn = slices.Delete(b.Items[j].DependsOn, k, k+1)
				b.Items[j].UpdatedAt = now
			}
		}
		d.DetachedFrom = append(d.DetachedFrom, dependents...)
		d.Removed = b.Items[i]
		b.Items = slices.Delete(b.Items, i, i+1)
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("Removed %s %q from board %s (%s).", d.Removed.ID, envelope.Clip(d.Removed.Text, 60), b.ID, countLine(b))
	if len(d.DetachedFrom) > 0 {
		summary += " Dropped it from the depends_on of " + strings.Join(d.DetachedFrom, ", ") + "."
	}
	env := envelope.New("", summary, d)
	env.Fact("removed %s from board %s", d.Removed.ID, b.ID)
	env.Fact("board %s: %s", b.ID, countLine(b))
	return env, nil
}

// NoteData is the data of note.
type NoteData struct {
	BoardID string `json:"boardId"`
	Note    Note   `json:"note"`
	Notes   int    `json:"notes"`
}

// AddNote records a dated note on a board (action "note").
func AddNote(ctx context.Context, ws *workspace.Workspace, req *NoteRequest) (envelope.Envelope, error) {
	text, err := checkText("text", req.Text, MaxText, true)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &NoteData{BoardID: req.BoardID}
	b, err := mutate(ws, req.BoardID, func(b *Board, now time.Time) error {
		if req.ItemID != "" && b.index(req.ItemID) < 0 {
			return itemNotFound(b, req.ItemID)
		}
		d.Note = Note{At: now, ItemID: req.ItemID, Text: text}
		b.Notes = append(b.Notes, d.Note)
		if over := len(b.Notes) - MaxNotes; over > 0 {
			b.Notes = slices.Delete(b.Notes, 0, over)
		}
		d.Notes = len(b.Notes)
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	about := ""
	if req.ItemID != "" {
		about = " about " + req.ItemID
	}
	env := envelope.New("", fmt.Sprintf("Noted on board %s%s (%d notes).", b.ID, about, d.Notes), d)
	env.Fact("note on board %s%s: %s", b.ID, about, envelope.Clip(text, 80))
	return env, nil
}

// CheckpointResult is the data of checkpoint.
type CheckpointResult struct {
	BoardID    string     `json:"boardId"`
	Checkpoint Checkpoint `json:"checkpoint"`
}

// RecordCheckpoint snapshots the board's items under a checkpoint_ id
// (action "checkpoint"); `show --checkpoint` reads it back.
func RecordCheckpoint(ctx context.Context, ws *workspace.Workspace, req *CheckpointRequest) (envelope.Envelope, error) {
	label, err := checkText("label", req.Label, MaxTitle, false)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &CheckpointResult{BoardID: req.BoardID}
	b, err := mutate(ws, req.BoardID, func(b *Board, now time.Time) error {
		id := store.NewID("checkpoint")
		path := snapshotPath(ws, b.ID, id)
		b.normalize()
		// The snapshot is written first, under the lock: a crash before the
		// board is written leaves an unindexed file, never an index entry
		// without its snapshot.
		if err := ws.Store.WriteJSON(path, &Snapshot{ID: id, BoardID: b.ID, Label: label, CreatedAt: now, Items: b.Items}); err != nil {
			return err
		}
		d.Checkpoint = Checkpoint{ID: id, Label: label, CreatedAt: now, Path: ws.Store.Rel(path), Counts: b.counts()}
		b.Checkpoints = append(b.Checkpoints, d.Checkpoint)
		if over := len(b.Checkpoints) - MaxCheckpoints; over > 0 {
			for _, c := range b.Checkpoints[:over] {
				os.Remove(snapshotPath(ws, b.ID, c.ID))
			}
			b.Checkpoints = slices.Delete(b.Checkpoints, 0, over)
		}
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", fmt.Sprintf("Recorded checkpoint %s of board %s (%s); `aw tasks show %s --checkpoint %s` reads it back.", d.Checkpoint.ID, b.ID, countLine(b), b.ID, d.Checkpoint.ID), d)
	env.Retention.Importance = envelope.High
	env.Fact("checkpoint %s of board %s: %s", d.Checkpoint.ID, b.ID, countLine(b))
	return env, nil
}

// NextData is the data of next.
type NextData struct {
	BoardID string `json:"boardId"`
	Item    *Item  `json:"item"`
	// Ready counts the pending items whose dependencies are all completed.
	Ready  int    `json:"ready"`
	Reason string `json:"reason,omitempty"`
}

// Next returns the highest-priority pending item whose dependencies are
// all completed; ties go to the earlier item on the board.
func Next(ctx context.Context, ws *workspace.Workspace, req *BoardRequest) (envelope.Envelope, error) {
	b, err := load(ws, req.BoardID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	status := map[string]string{}
	for _, it := range b.Items {
		status[it.ID] = it.Status
	}
	d := &NextData{BoardID: b.ID}
	var waiting []string
	for i := range b.Items {
		it := &b.Items[i]
		if it.Status != Pending {
			continue
		}
		var open []string
		for _, dep := range it.DependsOn {
			if status[dep] != Completed {
				open = append(open, dep+" ("+status[dep]+")")
			}
		}
		if len(open) > 0 {
			waiting = append(waiting, it.ID+" waits on "+strings.Join(open, ", "))
			continue
		}
		d.Ready++
		if d.Item == nil || priorityRank(it.Priority) < priorityRank(d.Item.Priority) {
			d.Item = it
		}
	}
	var env envelope.Envelope
	if d.Item != nil {
		env = envelope.New("", fmt.Sprintf("Next on board %s: %s %q (%s priority; %d pending item(s) ready).", b.ID, d.Item.ID, envelope.Clip(d.Item.Text, 80), d.Item.Priority, d.Ready), d)
		env.Fact("next %s (%s) on board %s: %s", d.Item.ID, d.Item.Priority, b.ID, envelope.Clip(d.Item.Text, 60))
	} else {
		switch {
		case len(waiting) > 0:
			d.Reason = "every pending item waits on a dependency that is not completed: " + strings.Join(waiting, "; ")
		case b.counts()[Pending] == 0 && len(b.Items) > 0:
			d.Reason = "no pending items (" + countLine(b) + ")"
		default:
			d.Reason = "the board has no items"
		}
		env = envelope.New("", fmt.Sprintf("Nothing to do next on board %s: %s.", b.ID, d.Reason), d)
		env.Fact("board %s: nothing ready (%s)", b.ID, countLine(b))
	}
	return env, nil
}

// StatusData is the data of archive and reopen.
type StatusData struct {
	BoardID string `json:"boardId"`
	Status  string `json:"status"`
	NoOp    bool   `json:"noOp,omitempty"`
}

// Archive makes a board read-only and hides it from list.
func Archive(ctx context.Context, ws *workspace.Workspace, req *BoardRequest) (envelope.Envelope, error) {
	return setStatus(ws, req.BoardID, Archived)
}

// Reopen makes an archived board active again.
func Reopen(ctx context.Context, ws *workspace.Workspace, req *BoardRequest) (envelope.Envelope, error) {
	return setStatus(ws, req.BoardID, Active)
}

func setStatus(ws *workspace.Workspace, id, status string) (envelope.Envelope, error) {
	d := &StatusData{BoardID: id, Status: status}
	b, err := update(ws, id, func(b *Board, now time.Time) error {
		if b.Status == status {
			d.NoOp = true
			return nil
		}
		b.Status = status
		if status == Archived {
			b.ArchivedAt = now
		} else {
			b.ArchivedAt = time.Time{}
		}
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	var summary string
	switch {
	case d.NoOp:
		summary = fmt.Sprintf("Board %s is already %s: nothing to do.", b.ID, status)
	case status == Archived:
		summary = fmt.Sprintf("Archived board %s %q (%s); it is read-only and hidden from list until `aw tasks reopen %s`.", b.ID, b.Title, countLine(b), b.ID)
	default:
		summary = fmt.Sprintf("Reopened board %s %q (%s).", b.ID, b.Title, countLine(b))
	}
	env := envelope.New("", summary, d)
	env.Fact("board %s %s", b.ID, status)
	return env, nil
}
