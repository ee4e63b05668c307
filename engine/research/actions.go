package research

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/agent"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/netguard"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The request types are the tool's JSON arguments (snake_case), as MCP and
// --input send them.

// StartRequest creates a project.
type StartRequest struct {
	Title string `json:"title" doc:"what the project investigates, at most 200 characters"`
}

// SearchRequest queries a provider, optionally recording the result.
type SearchRequest struct {
	Query      string `json:"query" doc:"the search terms, at most 500 characters"`
	Provider   string `json:"provider,omitempty" doc:"the search engine; default: the research.provider setting (auto: searxng when an instance is set, else duckduckgo, falling back to wikipedia)" enum:"auto,duckduckgo,wikipedia,searxng"`
	ResearchID string `json:"research_id,omitempty" doc:"record the query and its results in this research_ project; default: not recorded"`
	Limit      int    `json:"limit,omitempty" doc:"most results returned, 1 to 50; default 10"`
}

// FetchRequest fetches one URL, optionally as a source of a project.
type FetchRequest struct {
	URL            string `json:"url" doc:"the http or https URL to fetch (loopback and private addresses are refused unless a human allows them); bodies are read up to 20 MiB"`
	ResearchID     string `json:"research_id,omitempty" doc:"keep the page as a durable source of this research_ project (its text under sources/); default: not kept"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" doc:"seconds before the fetch gives up, 1 to 120; default 30"`
}

// DeepRequest starts or awaits a research agent.
type DeepRequest struct {
	ResearchID     string   `json:"research_id,omitempty" doc:"the research_ project the agent records into (default: a new project named after the objective)"`
	Objective      string   `json:"objective,omitempty" doc:"what the research agent should find out (required unless run_id is given; at most 20,000 characters)"`
	Context        string   `json:"context,omitempty" doc:"what is known already, what to leave out"`
	RunID          string   `json:"run_id,omitempty" doc:"an earlier deep run_ to await instead of starting a new one"`
	TimeoutSeconds *float64 `json:"timeout_seconds,omitempty" doc:"with run_id: seconds to wait, 1-3600 (default 60); still running then is a TIMEOUT error"`
}

// ListRequest lists projects.
type ListRequest struct {
	IncludeArchived bool `json:"include_archived,omitempty" doc:"include archived projects; default false"`
	Limit           int  `json:"limit,omitempty" doc:"most projects returned, newest first, 1 to 200; default 50"`
}

// ProjectRequest names a project (show, archive).
type ProjectRequest struct {
	ResearchID string `json:"research_id" doc:"the research_ id (a unique prefix works)"`
}

// NoteRequest adds a note to a project.
type NoteRequest struct {
	ResearchID string `json:"research_id" doc:"the research_ id (a unique prefix works)"`
	Kind       string `json:"kind" doc:"what the note is: a finding, a claim to verify, an open question, a warning, or the method used" enum:"finding,claim,question,warning,method"`
	Text       string `json:"text" doc:"the note, at most 4000 characters"`
	SourceID   string `json:"source_id,omitempty" doc:"the source_ id of the project the note rests on"`
}

// StartData is the data of start; researchId is the id every later call names.
type StartData struct {
	ResearchID string `json:"researchId"`
	Title      string `json:"title"`
	Status     string `json:"status"`
	Path       string `json:"path"`
}

// Start creates a project. Never gated.
func Start(ctx context.Context, ws *workspace.Workspace, req *StartRequest) (envelope.Envelope, error) {
	title := collapse(req.Title)
	if title == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "title is required: name what the research is about").With("field", "title")
	}
	if n := utf8.RuneCountInString(title); n > MaxTitle {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "title is %d characters; at most %d", n, MaxTitle).With("field", "title")
	}
	now := time.Now().UTC()
	p := Project{ID: store.NewID("research"), Title: title, Status: Active, CreatedAt: now, UpdatedAt: now}
	p.normalize()
	unlock, err := ws.Store.Lock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	err = ws.Store.WriteJSON(projectPath(ws, p.ID), &p)
	unlock()
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &StartData{ResearchID: p.ID, Title: p.Title, Status: p.Status, Path: ws.Store.Rel(projectPath(ws, p.ID))}
	env := envelope.New("", fmt.Sprintf("Started research project %s %q. Pass --research %s to search and fetch to record queries and sources in it.", p.ID, p.Title, p.ID), d)
	env.Retention.Importance = envelope.High
	env.Fact("research project %s %q", p.ID, envelope.Clip(p.Title, 80))
	return env, nil
}

// ProjectEntry is one project in list.
type ProjectEntry struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	Sources   int       `json:"sources"`
	Queries   int       `json:"queries"`
	Notes     int       `json:"notes"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Path      string    `json:"path"`
}

// ListData is the data of list.
type ListData struct {
	Projects []ProjectEntry `json:"projects"`
	Total    int            `json:"total"`
	Archived int            `json:"archived"`
}

// List lists projects, newest first. Never gated.
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, 50, 200)
	if err != nil {
		return envelope.Envelope{}, err
	}
	all, err := projects(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &ListData{Projects: []ProjectEntry{}}
	for _, p := range all {
		if p.Status == Archived {
			d.Archived++
			if !req.IncludeArchived {
				continue
			}
		}
		d.Projects = append(d.Projects, ProjectEntry{ID: p.ID, Title: p.Title, Status: p.Status, Sources: len(p.Sources), Queries: len(p.Queries),
			Notes: len(p.Notes), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Path: ws.Store.Rel(projectPath(ws, p.ID))})
	}
	sort.Slice(d.Projects, func(i, j int) bool { return d.Projects[i].ID > d.Projects[j].ID })
	d.Total = len(d.Projects)
	if len(d.Projects) > limit {
		d.Projects = d.Projects[:limit]
	}
	summary := fmt.Sprintf("%d research project(s)", d.Total)
	if len(d.Projects) < d.Total {
		summary += fmt.Sprintf(", showing the newest %d", len(d.Projects))
	}
	if d.Archived > 0 && !req.IncludeArchived {
		summary += fmt.Sprintf(" (%d archived hidden: --all shows them)", d.Archived)
	}
	env := envelope.New("", summary+".", d)
	env.Retention.Importance = envelope.Low
	for _, p := range d.Projects {
		env.Fact("research %s %q (%s): %d sources, %d queries, %d notes", p.ID, envelope.Clip(p.Title, 60), p.Status, p.Sources, p.Queries, p.Notes)
	}
	return env, nil
}

// QueryEntry is a recorded query in show (its results are in project.json).
type QueryEntry struct {
	ID       string    `json:"id"`
	Query    string    `json:"query"`
	Provider string    `json:"provider"`
	At       time.Time `json:"at"`
	Results  int       `json:"results"`
}

// ProjectView is the project in show.
type ProjectView struct {
	ID         string       `json:"id"`
	Title      string       `json:"title"`
	Status     string       `json:"status"`
	Path       string       `json:"path"`
	CreatedAt  time.Time    `json:"createdAt"`
	UpdatedAt  time.Time    `json:"updatedAt"`
	ArchivedAt time.Time    `json:"archivedAt,omitzero"`
	Sources    []Source     `json:"sources"`
	Queries    []QueryEntry `json:"queries"`
	Notes      []Note       `json:"notes"`
	// Truncated is set when only the newest entries fit maxToolResultChars;
	// project.json (Path) holds them all.
	Truncated bool `json:"truncated"`
}

// ShowData is the data of show.
type ShowData struct {
	Project ProjectView `json:"project"`
}

// Show returns a project: its sources, queries and notes. Never gated.
func Show(ctx context.Context, ws *workspace.Workspace, req *ProjectRequest) (envelope.Envelope, error) {
	p, err := load(ws, req.ResearchID)
	if err != nil {
		return envelope.Envelope{}, err
	}
	v := ProjectView{ID: p.ID, Title: p.Title, Status: p.Status, Path: ws.Store.Rel(projectPath(ws, p.ID)),
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, ArchivedAt: p.ArchivedAt, Sources: p.Sources, Notes: p.Notes, Queries: []QueryEntry{}}
	for _, q := range p.Queries {
		v.Queries = append(v.Queries, QueryEntry{ID: q.ID, Query: q.Query, Provider: q.Provider, At: q.At, Results: len(q.Results)})
	}
	// Keep the newest entries that fit; project.json holds the rest.
	for keep := 1000; ; keep /= 2 {
		raw, _ := json.Marshal(v)
		if len(raw) <= ws.Settings.MaxToolResultChars || keep < 1 {
			break
		}
		v.Truncated = true
		v.Sources, v.Queries, v.Notes = tail(v.Sources, keep), tail(v.Queries, keep), tail(v.Notes, keep)
	}
	summary := fmt.Sprintf("Research project %s %q (%s): %d sources, %d queries, %d notes.", p.ID, p.Title, p.Status, len(p.Sources), len(p.Queries), len(p.Notes))
	if v.Truncated {
		summary += fmt.Sprintf(" Only the newest entries are shown; %s holds them all.", v.Path)
	}
	env := envelope.New("", summary, &ShowData{Project: v})
	env.Omit("data.project.sources", "data.project.queries", "data.project.notes")
	env.Fact("research %s %q (%s): %d sources, %d queries, %d notes; %s", p.ID, envelope.Clip(p.Title, 60), p.Status, len(p.Sources), len(p.Queries), len(p.Notes), v.Path)
	for i, s := range p.Sources {
		if i == 20 {
			env.Fact("… %d more sources in %s", len(p.Sources)-20, v.Path)
			break
		}
		env.Fact("%s %s: %s", s.ID, s.FinalURL, s.ContentPath)
	}
	return env, nil
}

func tail[T any](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// NoteData is the data of note.
type NoteData struct {
	ResearchID string `json:"researchId"`
	Note       Note   `json:"note"`
	Notes      int    `json:"notes"`
}

// AddNote records a finding, claim, question, warning or method. Never gated.
func AddNote(ctx context.Context, ws *workspace.Workspace, req *NoteRequest) (envelope.Envelope, error) {
	kind := strings.ToLower(strings.TrimSpace(req.Kind))
	if !slices.Contains(NoteKinds, kind) {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "kind %q is not one of %s", req.Kind, strings.Join(NoteKinds, ", ")).With("field", "kind")
	}
	text := strings.TrimSpace(req.Text)
	if text == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "text is required: the note itself").With("field", "text")
	}
	if n := utf8.RuneCountInString(text); n > MaxNoteText {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "text is %d characters; at most %d: split it into several notes", n, MaxNoteText).With("field", "text")
	}
	src := strings.TrimSpace(req.SourceID)
	if src != "" && !store.ValidID(src, "source") {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "source_id %q is not a source id (source_…): `aw research show %s` lists the project's sources", src, req.ResearchID).With("field", "source_id")
	}
	var note Note
	p, err := update(ws, req.ResearchID, false, func(p *Project, now time.Time) error {
		if src != "" && p.source(src) == nil {
			return envelope.Errorf(envelope.NotFound, "project %s has no source %s: `aw research show %s` lists its sources, and `aw research fetch URL --research %s` adds one", p.ID, src, p.ID, p.ID).With("source_id", src)
		}
		if len(p.Notes) >= MaxNotes {
			return envelope.Errorf(envelope.InvalidInput, "project %s holds %d notes, the most it keeps: start another project", p.ID, MaxNotes)
		}
		note = Note{ID: store.NewID("note"), Kind: kind, Text: text, SourceID: src, At: now}
		p.Notes = append(p.Notes, note)
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	about := ""
	if src != "" {
		about = " about " + src
	}
	env := envelope.New("", fmt.Sprintf("Added %s %s%s to %s (%d notes).", kind, note.ID, about, p.ID, len(p.Notes)), &NoteData{ResearchID: p.ID, Note: note, Notes: len(p.Notes)})
	env.Fact("%s %s in %s%s: %s", kind, note.ID, p.ID, about, envelope.Clip(text, 120))
	return env, nil
}

// Archive makes a project read-only. Never gated; archiving twice is a no-op.
func Archive(ctx context.Context, ws *workspace.Workspace, req *ProjectRequest) (envelope.Envelope, error) {
	already := false
	p, err := update(ws, req.ResearchID, true, func(p *Project, now time.Time) error {
		if p.Status == Archived {
			already = true
			return nil
		}
		p.Status, p.ArchivedAt = Archived, now
		return nil
	})
	if err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("Archived research project %s %q: it is read-only now.", p.ID, p.Title)
	if already {
		summary = fmt.Sprintf("Research project %s %q was already archived; nothing changed.", p.ID, p.Title)
	}
	env := envelope.New("", summary, &StartData{ResearchID: p.ID, Title: p.Title, Status: p.Status, Path: ws.Store.Rel(projectPath(ws, p.ID))})
	env.Fact("research %s archived", p.ID)
	return env, nil
}

// Deep starts a research agent: a research-mode sub-agent run in the
// background, tied to a project (commit_edits false, no commands), whose
// searches, fetches and notes are recorded in it. It is gated as web
// (staged in Manual mode, an approved plan in Plan mode); that decision
// covers the run. With run_id it awaits an earlier one instead.
func Deep(ctx context.Context, ws *workspace.Workspace, req *DeepRequest) (envelope.Envelope, error) {
	if !ws.Settings.Agents.Enabled {
		return envelope.Envelope{}, envelope.Errorf(envelope.AgentDisabled,
			"deep research runs a sub-agent and durable sub-agents are disabled (agents.enabled is off); use search and fetch yourself, or ask a human to enable agents").With("setting", "agents.enabled")
	}
	if req.RunID != "" {
		if req.Objective != "" || req.ResearchID != "" {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "run_id awaits an earlier deep run: give no objective or research_id with it")
		}
		return agent.Wait(ctx, ws, &agent.WaitRequest{RunID: req.RunID, TimeoutSeconds: req.TimeoutSeconds})
	}
	if strings.TrimSpace(req.Objective) == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "objective is required: say what the research should find out, e.g. `aw research deep 'Which HTTP client libraries support HTTP/3?'`").With("field", "objective")
	}
	if !ws.Settings.Agents.AllowWeb {
		return envelope.Envelope{}, envelope.Errorf(envelope.AgentDisabled, "deep research needs the web and sub-agents may not use it (agents.allowWeb is off); a human can allow it with `aw config set agents.allowWeb true`").With("setting", "agents.allowWeb")
	}
	var p *Project
	if req.ResearchID != "" {
		var err error
		if p, err = load(ws, req.ResearchID); err != nil {
			return envelope.Envelope{}, err
		}
		if p.Status == Archived {
			return envelope.Envelope{}, envelope.Errorf(envelope.TransactionState, "research project %s is archived (read-only): start a new one, or leave research_id out", p.ID).With("researchId", p.ID)
		}
	}
	args := map[string]any{"action": "deep", "objective": req.Objective}
	if req.Context != "" {
		args["context"] = req.Context
	}
	if p != nil {
		args["research_id"] = p.ID
	}
	d, err := gated(ws, envelope.Clip("Deep research (a sub-agent on the web): "+collapse(req.Objective), 200), args)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	if p == nil {
		started, err := Start(ctx, ws, &StartRequest{Title: clipRunes(collapse(req.Objective), MaxTitle)})
		if err != nil {
			return envelope.Envelope{}, err
		}
		p = &Project{ID: started.Data.(*StartData).ResearchID}
	}
	env, err := agent.StartResearch(ws, req.Objective, req.Context, p.ID, d)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env.Fact("research %s holds the deep run's sources and notes", p.ID)
	env.Summary += fmt.Sprintf(" `aw research deep --run %s` awaits it; `aw research show %s` shows what it recorded.", runID(env), p.ID)
	return env, nil
}

func runID(env envelope.Envelope) string {
	if d, ok := env.Data.(*agent.RunData); ok {
		return d.RunID
	}
	return "RUN"
}

// gated asks the gate whether a web call may run (kind "web"): staged in
// Manual mode, needs an approved plan in Plan mode, runs in Auto.
func gated(ws *workspace.Workspace, title string, args map[string]any) (gate.Decision, error) {
	review, _ := json.MarshalIndent(args, "", "  ")
	return gate.Check(ws, gate.Operation{
		Kind:   "web",
		Title:  title,
		Hash:   gate.Hash(args),
		Resume: gate.Resume{Tool: "workspace_research", Arguments: args},
		Review: string(review),
	})
}

// SearchData is the data of search; scripts rely on its field names.
type SearchData struct {
	QueryID    string    `json:"queryId"`
	Query      string    `json:"query"`
	Provider   string    `json:"provider"`
	Results    []Result  `json:"results"`
	Attempts   []Attempt `json:"attempts"`
	ResearchID string    `json:"researchId,omitempty"`
}

// Search queries a provider (auto falls back, visibly, in data.attempts).
// Gated as kind web.
func Search(ctx context.Context, ws *workspace.Workspace, req *SearchRequest) (envelope.Envelope, error) {
	query := collapse(req.Query)
	if query == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "query is required").With("field", "query")
	}
	if n := utf8.RuneCountInString(query); n > MaxQueryChars {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "query is %d characters; at most %d", n, MaxQueryChars).With("field", "query")
	}
	limit, err := envelope.Limit(req.Limit, 10, 50)
	if err != nil {
		return envelope.Envelope{}, err
	}
	providers, err := chain(&ws.Settings, req.Provider)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if req.ResearchID != "" {
		if _, err := active(ws, req.ResearchID); err != nil {
			return envelope.Envelope{}, err
		}
	}
	args := map[string]any{"action": "search", "query": query}
	if req.Provider != "" {
		args["provider"] = req.Provider
	}
	if req.ResearchID != "" {
		args["research_id"] = req.ResearchID
	}
	if req.Limit != 0 {
		args["limit"] = req.Limit
	}
	d, err := gated(ws, fmt.Sprintf("Web search (%s): %s", strings.Join(providers, " then "), envelope.Clip(query, 80)), args)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	sr := newSearcher(&ws.Settings)
	data := &SearchData{QueryID: store.NewID("query"), Query: query, Results: []Result{}, Attempts: []Attempt{}}
	var lastErr string
	for i, prov := range providers {
		start := time.Now()
		res, err := sr.run(ctx, prov, query, limit)
		a := Attempt{Provider: prov, OK: err == nil, Results: len(res), DurationMs: time.Since(start).Milliseconds()}
		if err != nil {
			a.Error = err.Error()
			lastErr = fmt.Sprintf("%s: %v", prov, err)
		}
		data.Attempts = append(data.Attempts, a)
		if err == nil && (len(res) > 0 || i == len(providers)-1) {
			data.Provider, data.Results = prov, res
			break
		}
		if err == nil && data.Provider == "" {
			// No results here; keep the answer in case no provider has more.
			data.Provider = prov
		}
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	if data.Provider == "" {
		e := envelope.Errorf(envelope.NetworkError, "every search provider failed (%s); retry later, or name another provider with --provider", lastErr).
			With("attempts", data.Attempts)
		return envelope.Envelope{}, e
	}
	if req.ResearchID != "" {
		_, err := update(ws, req.ResearchID, false, func(p *Project, now time.Time) error {
			p.Queries = append(p.Queries, Query{ID: data.QueryID, Query: query, Provider: data.Provider, At: now, Results: data.Results, Attempts: data.Attempts})
			if len(p.Queries) > MaxQueries {
				p.Queries = p.Queries[len(p.Queries)-MaxQueries:]
			}
			return nil
		})
		if err != nil {
			return envelope.Envelope{}, err
		}
		data.ResearchID = req.ResearchID
	}
	summary := fmt.Sprintf("%d result(s) for %q from %s", len(data.Results), query, data.Provider)
	if failed := failures(data.Attempts); failed != "" {
		summary += " (after " + failed + ")"
	}
	summary += "."
	if data.ResearchID != "" {
		summary += fmt.Sprintf(" Recorded as %s in %s.", data.QueryID, data.ResearchID)
	}
	env := envelope.New("", summary, data)
	env.Omit("data.results")
	recorded := "not recorded (no research_id)"
	if data.ResearchID != "" {
		recorded = "recorded in " + data.ResearchID
	}
	env.Fact("query %s %q via %s: %d results, %s", data.QueryID, envelope.Clip(query, 80), data.Provider, len(data.Results), recorded)
	for i, r := range data.Results {
		if i == 5 {
			break
		}
		env.Fact("result %d: %s", i+1, r.URL)
	}
	return env, nil
}

// failures describes the attempts that did not answer, for the summary.
func failures(attempts []Attempt) string {
	var parts []string
	for _, a := range attempts {
		switch {
		case !a.OK:
			parts = append(parts, fmt.Sprintf("%s failed: %s", a.Provider, envelope.Clip(a.Error, 120)))
		case a.Results == 0 && len(attempts) > 1:
			parts = append(parts, a.Provider+" found nothing")
		}
	}
	return strings.Join(parts, "; ")
}

// FetchData is the data of fetch; scripts rely on its field names.
type FetchData struct {
	URL         string   `json:"url"`
	FinalURL    string   `json:"finalUrl"`
	Status      int      `json:"status"`
	ContentType string   `json:"contentType"`
	Charset     string   `json:"charset"`
	Title       string   `json:"title"`
	Text        string   `json:"text"`
	TextChars   int      `json:"textChars"`  // characters in data.text
	TotalChars  int      `json:"totalChars"` // characters of the whole text
	Truncated   bool     `json:"truncated"`
	Links       []Link   `json:"links"`
	LinksTotal  int      `json:"linksTotal"`
	LinksOmit   int      `json:"linksOmitted"`
	Redirects   []string `json:"redirects"`
	Bytes       int64    `json:"bytes"`
	// BodyTruncated is set when the body passed the read cap (20 MiB) and
	// only its start was read.
	BodyTruncated bool   `json:"bodyTruncated"`
	DurationMs    int64  `json:"durationMs"`
	SourceID      string `json:"sourceId,omitempty"`
	ContentPath   string `json:"contentPath,omitempty"`
	ResearchID    string `json:"researchId,omitempty"`
}

// Budgets returns the inline budgets of a fetch: the text gets
// maxToolResultChars, the links their own quarter share (>= 1,000).
func Budgets(maxChars int) (text, links int) {
	links = maxChars / 4
	if links < 1000 {
		links = 1000
	}
	return maxChars, links
}

// boundText cuts text to max characters, at a line or word break when one
// is near the end.
func boundText(text string, max int) (string, bool) {
	if utf8.RuneCountInString(text) <= max {
		return text, false
	}
	cut := 0
	for i := range text {
		if max == 0 {
			cut = i
			break
		}
		max--
	}
	head := text[:cut]
	if i := strings.LastIndexAny(head, "\n"); i > len(head)*9/10 {
		head = head[:i]
	} else if i := strings.LastIndexByte(head, ' '); i > len(head)*9/10 {
		head = head[:i]
	}
	return head, true
}

// boundLinks keeps links in document order while their cost (URL plus
// text, in characters) fits share.
func boundLinks(links []Link, share int) ([]Link, int) {
	used := 0
	for i, l := range links {
		c := utf8.RuneCountInString(l.URL) + utf8.RuneCountInString(l.Text)
		if used+c > share {
			return links[:i], len(links) - i
		}
		used += c
	}
	return links, 0
}

// fetcher is the Fetcher of a workspace's settings.
func fetcher(ws *workspace.Workspace, timeoutSeconds int) (*Fetcher, error) {
	f := &Fetcher{Guard: netguard.Guard{AllowPrivate: ws.Settings.Research.AllowPrivateNetwork}, MaxBytes: MaxBodyBytes, MaxRedirects: MaxRedirects, Timeout: DefaultTimeout}
	if timeoutSeconds != 0 {
		if timeoutSeconds < 1 || time.Duration(timeoutSeconds)*time.Second > MaxTimeout {
			return nil, envelope.Errorf(envelope.InvalidInput, "timeout_seconds %d is outside 1..%d", timeoutSeconds, int(MaxTimeout/time.Second)).With("field", "timeout_seconds")
		}
		f.Timeout = time.Duration(timeoutSeconds) * time.Second
	}
	return f, nil
}

// Fetch fetches a URL and extracts its title, main text and links. Gated
// as kind web. With research_id the whole text becomes a source of the
// project (sources/<source_id>.txt); without, a text longer than the
// inline budget is stored as an artifact.
func Fetch(ctx context.Context, ws *workspace.Workspace, req *FetchRequest) (envelope.Envelope, error) {
	f, err := fetcher(ws, req.TimeoutSeconds)
	if err != nil {
		return envelope.Envelope{}, err
	}
	u, err := f.ParseURL(req.URL)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if req.ResearchID != "" {
		if _, err := active(ws, req.ResearchID); err != nil {
			return envelope.Envelope{}, err
		}
	}
	args := map[string]any{"action": "fetch", "url": strings.TrimSpace(req.URL)}
	if req.ResearchID != "" {
		args["research_id"] = req.ResearchID
	}
	if req.TimeoutSeconds != 0 {
		args["timeout_seconds"] = req.TimeoutSeconds
	}
	d, err := gated(ws, "Fetch "+envelope.Clip(u.Redacted(), 200), args)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	res, ferr := f.Fetch(ctx, u)
	// The request went out: the egress the approval allowed has happened.
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	if ferr != nil {
		return envelope.Envelope{}, ferr
	}
	textBudget, linkBudget := Budgets(ws.Settings.MaxToolResultChars)
	data := &FetchData{URL: res.URL, FinalURL: res.FinalURL, Status: res.Status, ContentType: res.ContentType, Charset: res.Charset,
		Title: res.Title, TotalChars: utf8.RuneCountInString(res.Text), Redirects: res.Redirects, Bytes: res.Bytes,
		BodyTruncated: res.BodyTruncated, DurationMs: res.Duration.Milliseconds(), LinksTotal: len(res.Links)}
	data.Text, data.Truncated = boundText(res.Text, textBudget)
	data.TextChars = utf8.RuneCountInString(data.Text)
	data.Links, data.LinksOmit = boundLinks(res.Links, linkBudget)

	env := envelope.New("", "", data)
	sum := sha256.Sum256([]byte(res.Text))
	if req.ResearchID != "" {
		src := Source{ID: store.NewID("source"), URL: res.URL, FinalURL: res.FinalURL, Title: res.Title, Status: res.Status,
			ContentType: res.ContentType, Chars: data.TotalChars, SHA256: hex.EncodeToString(sum[:]), Links: len(res.Links), FetchedAt: time.Now().UTC()}
		path := sourcePath(ws, req.ResearchID, src.ID)
		src.ContentPath = ws.Store.Rel(path)
		if err := store.WriteFile(path, []byte(res.Text), 0o644); err != nil {
			return envelope.Envelope{}, err
		}
		_, err := update(ws, req.ResearchID, false, func(p *Project, now time.Time) error {
			if len(p.Sources) >= MaxSources {
				return envelope.Errorf(envelope.InvalidInput, "project %s holds %d sources, the most it keeps: start another project", p.ID, MaxSources)
			}
			p.Sources = append(p.Sources, src)
			return nil
		})
		if err != nil {
			return envelope.Envelope{}, err
		}
		data.SourceID, data.ContentPath, data.ResearchID = src.ID, src.ContentPath, req.ResearchID
	} else if data.Truncated {
		art, err := ws.Store.WriteArtifact("text", "fetch.txt", []byte(res.Text), "the whole extracted text of "+res.FinalURL)
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, art)
	}

	title := res.Title
	if title == "" {
		title = res.ContentType
	}
	summary := fmt.Sprintf("Fetched %s (HTTP %d, %s): %q, %d characters of text, %d links", res.FinalURL, res.Status, res.ContentType, envelope.Clip(title, 100), data.TotalChars, len(res.Links))
	if len(res.Redirects) > 0 {
		summary += fmt.Sprintf(", after %d redirect(s)", len(res.Redirects))
	}
	summary += "."
	switch {
	case data.Truncated && data.ContentPath != "":
		summary += fmt.Sprintf(" data.text holds the first %d characters; the whole text is %s.", data.TextChars, data.ContentPath)
	case data.Truncated:
		summary += fmt.Sprintf(" data.text holds the first %d characters; the whole text is %s.", data.TextChars, env.Artifacts[0].Path)
	}
	if data.LinksOmit > 0 {
		summary += fmt.Sprintf(" %d links did not fit (linksOmitted); raise maxToolResultChars or re-fetch to see more.", data.LinksOmit)
	}
	if data.SourceID != "" {
		summary += fmt.Sprintf(" Stored as source %s of %s.", data.SourceID, data.ResearchID)
	}
	if res.BodyTruncated {
		summary += fmt.Sprintf(" The body passed the %d MiB read cap; only its start was read.", MaxBodyBytes>>20)
	}
	env.Summary = summary
	env.Omit("data.text", "data.links")
	env.Fact("fetched %s: HTTP %d %s %q (%d chars, %d links)", res.FinalURL, res.Status, res.ContentType, envelope.Clip(res.Title, 80), data.TotalChars, len(res.Links))
	if data.SourceID != "" {
		env.Fact("source %s of %s: %s", data.SourceID, data.ResearchID, data.ContentPath)
	} else if len(env.Artifacts) > 0 {
		env.Fact("whole text: %s", env.Artifacts[0].Path)
	}
	return env, nil
}
