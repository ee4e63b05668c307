// Package research owns web research (workspace_research): durable projects
// under .agentic/research/<research_id>/ (project.json,
// sources/<source_id>.txt), search providers (duckduckgo, wikipedia, searxng,
// auto) and fetch with text and link extraction.
//
// search, fetch and deep reach a host outside this machine and go through
// the gate as kind "web"; start, note, show, list and archive touch only
// .agentic/ state and are never gated. Every connection fetch makes is
// checked by engine/netguard on the address it resolved to. A fetched
// page's text is data: nothing in it is ever read as an instruction, a
// setting or a call.
//
// Decisions:
//   - data.text is bounded by maxToolResultChars and data.links by its own
//     share, a quarter of maxToolResultChars and at least 1,000 characters
//     (a link costs its URL plus its text).
//   - an approval for a web call is consumed once the request was sent,
//     whatever the answer: the egress it allowed has happened.
//   - HTTP error statuses are NETWORK_ERROR with the status, and the error
//     page's title and first words, in details.
//   - a refused address is NETWORK_ERROR, details.reason "private-address".
//   - an archived project is read-only: search, fetch and note refuse it.
package research

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Project statuses.
const (
	Active   = "active"
	Archived = "archived"
)

// NoteKinds are the kinds a research note may have (else INVALID_INPUT).
var NoteKinds = []string{"finding", "claim", "question", "warning", "method"}

// Limits keep project.json a file an agent can read back.
const (
	MaxTitle      = 200
	MaxNoteText   = 4000
	MaxNotes      = 2000
	MaxSources    = 1000
	MaxQueries    = 1000
	MaxQueryChars = 500
)

// Project is .agentic/research/<research_id>/project.json. id and title
// are read by inspect changes; keep them.
type Project struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	ArchivedAt time.Time `json:"archivedAt,omitzero"`
	Sources    []Source  `json:"sources"`
	Queries    []Query   `json:"queries"`
	Notes      []Note    `json:"notes"`
}

// Source is one fetched page; its whole text is in ContentPath.
type Source struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	FinalURL    string    `json:"finalUrl"`
	Title       string    `json:"title"`
	Status      int       `json:"status"`
	ContentType string    `json:"contentType"`
	ContentPath string    `json:"contentPath"`
	Chars       int       `json:"chars"`
	SHA256      string    `json:"sha256"`
	Links       int       `json:"links"`
	FetchedAt   time.Time `json:"fetchedAt"`
}

// Query is one recorded search.
type Query struct {
	ID       string    `json:"id"`
	Query    string    `json:"query"`
	Provider string    `json:"provider"`
	At       time.Time `json:"at"`
	Results  []Result  `json:"results"`
	Attempts []Attempt `json:"attempts"`
}

// Note is a finding, claim, question, warning or method, optionally tied
// to a source.
type Note struct {
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	Text     string    `json:"text"`
	SourceID string    `json:"sourceId,omitempty"`
	At       time.Time `json:"at"`
}

func projectDir(ws *workspace.Workspace, id string) string { return ws.Store.Path("research", id) }

func projectPath(ws *workspace.Workspace, id string) string {
	return filepath.Join(projectDir(ws, id), "project.json")
}

func sourcePath(ws *workspace.Workspace, id, sourceID string) string {
	return filepath.Join(projectDir(ws, id), "sources", sourceID+".txt")
}

func checkID(id string) error {
	if id == "" {
		return envelope.Errorf(envelope.InvalidInput, "research_id is required: `aw research list` shows the projects, `aw research start TITLE` makes one")
	}
	if !store.ValidID(id, "research") {
		return envelope.Errorf(envelope.InvalidInput, "research_id %q is not a research project id (research_…): `aw research list` shows the projects", id).With("research_id", id)
	}
	return nil
}

func notFound(id string) error {
	return envelope.Errorf(envelope.NotFound, "no research project %s: `aw research list --all` shows the projects (archived ones too)", id).With("research_id", id)
}

// load reads a project without the lock (one atomic file).
func load(ws *workspace.Workspace, id string) (*Project, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	var p Project
	found, err := ws.Store.ReadJSON(projectPath(ws, id), &p)
	if err != nil {
		return nil, err
	}
	if !found || p.ID == "" {
		return nil, notFound(id)
	}
	p.normalize()
	return &p, nil
}

// update runs fn on a project under the store lock; a missing project is
// NOT_FOUND and an archived one refuses changes unless archivedOK.
func update(ws *workspace.Workspace, id string, archivedOK bool, fn func(p *Project, now time.Time) error) (*Project, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	var out Project
	err := store.Update(ws.Store, projectPath(ws, id), func(p *Project) error {
		if p.ID == "" {
			return notFound(id)
		}
		if p.Status == Archived && !archivedOK {
			return archivedErr(p.ID)
		}
		now := time.Now().UTC()
		if err := fn(p, now); err != nil {
			return err
		}
		p.UpdatedAt = now
		p.normalize()
		out = *p
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func archivedErr(id string) error {
	return envelope.Errorf(envelope.TransactionState, "research project %s is archived and read-only: start a new project with `aw research start TITLE`", id).With("research_id", id)
}

// active loads a project that may still change (before a gated call, so a
// wrong id fails before anything is staged or sent).
func active(ws *workspace.Workspace, id string) (*Project, error) {
	p, err := load(ws, id)
	if err != nil {
		return nil, err
	}
	if p.Status == Archived {
		return nil, archivedErr(id)
	}
	return p, nil
}

func (p *Project) normalize() {
	if p.Sources == nil {
		p.Sources = []Source{}
	}
	if p.Queries == nil {
		p.Queries = []Query{}
	}
	if p.Notes == nil {
		p.Notes = []Note{}
	}
}

func (p *Project) source(id string) *Source {
	for i := range p.Sources {
		if p.Sources[i].ID == id {
			return &p.Sources[i]
		}
	}
	return nil
}

// projects reads every project.json under .agentic/research.
func projects(ws *workspace.Workspace) ([]Project, error) {
	entries, err := os.ReadDir(ws.Store.Path("research"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, envelope.Errorf(envelope.Internal, "cannot list .agentic/research: %v; check its permissions", err)
	}
	var out []Project
	for _, e := range entries {
		if !e.IsDir() || !store.ValidID(e.Name(), "research") {
			continue
		}
		var p Project
		found, err := ws.Store.ReadJSON(projectPath(ws, e.Name()), &p)
		if err != nil {
			return nil, err
		}
		if found && p.ID != "" {
			p.normalize()
			out = append(out, p)
		}
	}
	return out, nil
}
