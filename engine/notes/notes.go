// Package notes owns the agent's notes (.agentic/notes/<name>.md) and the
// durable workspace memory (.agentic/MEMORY.md): workspace_notes.
// Notes are store state, not workspace edits: never gated, always written
// under the store lock and atomically. It never prints.
package notes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Size limits: one note, MEMORY.md, and the notes a list returns.
const (
	MaxNoteBytes   = 200_000
	MaxMemoryBytes = 64_000
	DefaultLimit   = 100
	MaxLimit       = 200
)

// Request is the argument object of every notes action: name, content,
// memory (MEMORY.md instead of a note), limit (list only).
type Request struct {
	Name    string  `json:"name,omitempty" doc:"the note: letters, digits, . _ or -, starting with a letter or digit, at most 64 characters (a trailing .md is dropped); MEMORY names the workspace memory. Required by write, append, read and delete unless memory is true"`
	Content *string `json:"content,omitempty" doc:"write, append: the text (UTF-8); a note holds at most 200000 bytes, the memory 64000"`
	Memory  bool    `json:"memory,omitempty" doc:"target the workspace memory (.agentic/MEMORY.md) instead of a note; default false. The memory cannot be deleted"`
	Limit   int     `json:"limit,omitempty" doc:"list: most notes returned, 1 to 200; default 100"`
}

// target is a resolved note: its display name and file.
type target struct {
	name   string // "MEMORY" for the memory file
	path   string // absolute
	memory bool
	max    int
}

// validName: letters, digits, '.', '_' or '-', starting with a letter or
// digit. A loop, not a regexp: package init runs on every aw call.
func validName(name string) bool {
	for i, c := range name {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return name != ""
}

// windowsDevice reports a reserved device name, refused on every platform so
// a workspace stays usable when it is checked out on Windows.
func windowsDevice(base string) bool {
	switch u := strings.ToUpper(base); u {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	default:
		return len(u) == 4 && (u[:3] == "COM" || u[:3] == "LPT") && u[3] >= '1' && u[3] <= '9'
	}
}

// resolve applies the naming rules: letters, digits, . _ -, starting with
// a letter or digit, at most 64 characters once a trailing .md is stripped;
// MEMORY or memory.md in any case, or memory:true, is the memory file.
func resolve(ws *workspace.Workspace, req *Request) (target, error) {
	name := strings.TrimSpace(req.Name)
	if req.Memory || strings.EqualFold(name, "MEMORY") || strings.EqualFold(name, "MEMORY.md") {
		if req.Memory && name != "" && !strings.EqualFold(name, "MEMORY") && !strings.EqualFold(name, "MEMORY.md") {
			return target{}, envelope.Errorf(envelope.InvalidInput, "memory:true targets .agentic/MEMORY.md, but name %q names another note; pass one or the other", name)
		}
		return target{name: "MEMORY", path: ws.Store.Path("MEMORY.md"), memory: true, max: MaxMemoryBytes}, nil
	}
	if name == "" {
		return target{}, envelope.Errorf(envelope.InvalidInput, "a note name is required (or memory:true / --memory for .agentic/MEMORY.md)")
	}
	if len(name) > 3 && strings.EqualFold(name[len(name)-3:], ".md") {
		name = name[:len(name)-3]
	}
	if len(name) > 64 || !validName(name) {
		return target{}, envelope.Errorf(envelope.InvalidInput,
			"note name %q is not allowed: use letters, digits, '.', '_' or '-', start with a letter or digit, at most 64 characters", req.Name).With("name", req.Name)
	}
	if windowsDevice(strings.SplitN(name, ".", 2)[0]) {
		return target{}, envelope.Errorf(envelope.InvalidInput,
			"note name %q is a Windows device name and cannot be a file there; choose another name", req.Name).With("name", req.Name)
	}
	return target{name: name, path: ws.Store.Path("notes", name+".md"), max: MaxNoteBytes}, nil
}

func (t target) rel(ws *workspace.Workspace) string { return ws.Store.Rel(t.path) }

// Note is the data of write, append and read.
type Note struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Memory  bool   `json:"memory"`
	Bytes   int    `json:"bytes"`
	Content string `json:"content,omitempty"`
	// Truncated: content holds the first lines that fit maxToolResultChars;
	// NextStart is the line to read on from with inspect read.
	Truncated bool `json:"truncated,omitempty"`
	NextStart int  `json:"nextStart,omitempty"`
}

func content(req *Request, action string) (string, error) {
	if req.Content == nil {
		return "", envelope.Errorf(envelope.InvalidInput, "%s needs content: pass --content TEXT or the text on stdin", action)
	}
	c := *req.Content
	if !utf8.ValidString(c) {
		return "", envelope.Errorf(envelope.InvalidInput, "the content is not valid UTF-8; notes hold text")
	}
	if strings.IndexByte(c, 0) >= 0 {
		return "", envelope.Errorf(envelope.InvalidInput, "the content contains a NUL byte; notes hold text")
	}
	return c, nil
}

func terminated(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

// Write replaces a note (or the memory) with content.
func Write(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	return change(ws, req, "write", func(old string, text string) string { return terminated(text) })
}

// Append adds content after a blank line (or starts the note).
func Append(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	return change(ws, req, "append", func(old string, text string) string {
		if old == "" {
			return terminated(text)
		}
		return terminated(old) + "\n" + terminated(text)
	})
}

// change runs a read-modify-write of one note under the store lock.
func change(ws *workspace.Workspace, req *Request, action string, next func(old, text string) string) (envelope.Envelope, error) {
	t, err := resolve(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	text, err := content(req, action)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if action == "append" && strings.TrimSpace(text) == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "append needs non-empty content")
	}
	unlock, err := ws.Store.Lock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	old, _, err := readNote(t)
	if err != nil {
		return envelope.Envelope{}, err
	}
	updated := next(old, text)
	if len(updated) > t.max {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
			"%s would be %d bytes, over its limit of %d; nothing was written: shorten it, or move older text to another note", t.rel(ws), len(updated), t.max).
			With("bytes", len(updated)).With("limit", t.max)
	}
	if err := store.WriteFile(t.path, []byte(updated), 0o644); err != nil {
		return envelope.Envelope{}, err
	}
	verb := map[string]string{"write": "Wrote", "append": "Appended to"}[action]
	env := envelope.New("", fmt.Sprintf("%s %s (%d bytes).", verb, t.rel(ws), len(updated)),
		Note{Name: t.name, Path: t.rel(ws), Memory: t.memory, Bytes: len(updated)})
	env.Fact("%s %s: %d bytes", strings.ToLower(verb), t.rel(ws), len(updated))
	return env, nil
}

func readNote(t target) (string, bool, error) {
	raw, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, envelope.Errorf(envelope.Internal, "cannot read %s: %v", t.path, err)
	}
	return string(raw), true, nil
}

// Read returns a note's content.
func Read(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	t, err := resolve(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	text, ok, err := readNote(t)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if !ok {
		if t.memory {
			return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "there is no workspace memory yet (.agentic/MEMORY.md); create it with `aw notes write --memory`").With("name", t.name)
		}
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "there is no note %q; `aw notes list` shows the notes", t.name).With("name", t.name)
	}
	n := Note{Name: t.name, Path: t.rel(ws), Memory: t.memory, Bytes: len(text), Content: text}
	summary := fmt.Sprintf("Read %s (%d bytes).", t.rel(ws), len(text))
	if max := ws.Settings.MaxToolResultChars; len(text) > max {
		// Whole lines up to the bound, so the rest starts on a line.
		cut := strings.LastIndexByte(text[:max], '\n') + 1
		if cut == 0 {
			cut = max
		}
		n.Content, n.Truncated, n.NextStart = text[:cut], true, strings.Count(text[:cut], "\n")+1
		summary = fmt.Sprintf("Read %s: the first %d of %d bytes (the note is longer than maxToolResultChars); read on with `aw inspect read %s --start %d`.", t.rel(ws), cut, len(text), t.rel(ws), n.NextStart)
	}
	env := envelope.New("", summary, n)
	env.Retention.Importance = envelope.Low
	env.Omit("data.content")
	env.Fact("note %s at %s (%d bytes)", t.name, t.rel(ws), len(text))
	if n.Truncated {
		env.Fact("note %s truncated inline: next --start %d", t.name, n.NextStart)
	}
	return env, nil
}

// Delete removes a note. The memory cannot be deleted.
func Delete(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	t, err := resolve(ws, req)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if t.memory {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "the workspace memory (.agentic/MEMORY.md) cannot be deleted; rewrite it with `aw notes write --memory` instead")
	}
	unlock, err := ws.Store.Lock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	defer unlock()
	if err := os.Remove(t.path); errors.Is(err, fs.ErrNotExist) {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "there is no note %q to delete; `aw notes list` shows the notes", t.name).With("name", t.name)
	} else if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot delete %s: %v", t.rel(ws), err)
	}
	if err := store.SyncDir(filepath.Dir(t.path)); err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", "Deleted "+t.rel(ws)+".", Note{Name: t.name, Path: t.rel(ws)})
	env.Fact("deleted note %s", t.name)
	return env, nil
}

// Listing is the data of list.
type Listing struct {
	Notes        []Entry `json:"notes"`
	Total        int     `json:"total"`
	MemoryExists bool    `json:"memoryExists"`
	MemoryBytes  int64   `json:"memoryBytes"`
	MemoryPath   string  `json:"memoryPath"`
}

// Entry is one note in a listing.
type Entry struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// List returns up to limit notes by name, the total, and the memory's state.
func List(ctx context.Context, ws *workspace.Workspace, req *Request) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, DefaultLimit, MaxLimit)
	if err != nil {
		return envelope.Envelope{}, err
	}
	all, err := Names(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	data := Listing{Notes: []Entry{}, Total: len(all), MemoryPath: ws.Store.Rel(ws.Store.Path("MEMORY.md"))}
	for i, e := range all {
		if i == limit {
			break
		}
		data.Notes = append(data.Notes, e)
	}
	if fi, err := os.Stat(ws.Store.Path("MEMORY.md")); err == nil {
		data.MemoryExists, data.MemoryBytes = true, fi.Size()
	}
	summary := plural(len(all), "note")
	if len(all) > len(data.Notes) {
		summary += fmt.Sprintf(", showing %d (raise --limit, up to %d, to see more)", len(data.Notes), MaxLimit)
	}
	if data.MemoryExists {
		summary += fmt.Sprintf("; memory %s (%d bytes).", data.MemoryPath, data.MemoryBytes)
	} else {
		summary += "; no workspace memory yet."
	}
	env := envelope.New("", summary, data)
	env.Retention.Importance = envelope.Low
	env.Omit("data.notes")
	for i, e := range data.Notes {
		if i == 20 {
			break
		}
		env.Fact("note %s (%d bytes)", e.Name, e.Bytes)
	}
	return env, nil
}

// Names lists the notes sorted by name (the memory is not a note).
func Names(ws *workspace.Workspace) ([]Entry, error) {
	dir := ws.Store.Path("notes")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot list %s: %v", ws.Store.Rel(dir), err)
	}
	var out []Entry
	for _, d := range ents {
		n := d.Name()
		if !d.Type().IsRegular() || !strings.HasSuffix(n, ".md") || strings.HasPrefix(n, ".") {
			continue
		}
		fi, err := d.Info()
		if err != nil {
			continue
		}
		out = append(out, Entry{Name: strings.TrimSuffix(n, ".md"), Bytes: fi.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
