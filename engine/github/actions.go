package github

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// The request types are the tool's JSON arguments (snake_case), as MCP and
// --input send them.

// AuthRequest is gh_auth's (no arguments).
type AuthRequest struct{}

// IssueListRequest lists a repository's issues (pull requests left out).
type IssueListRequest struct {
	Repo   string  `json:"repo,omitempty" doc:"the GitHub repository as OWNER/NAME (or a GitHub remote URL); default: the workspace repository's origin remote"`
	State  string  `json:"state,omitempty" doc:"which issues; default open" enum:"open,closed,all"`
	Labels Strings `json:"labels,omitempty" doc:"only issues carrying all these labels"`
	Limit  int     `json:"limit,omitempty" doc:"most issues returned, 1 to 1000; default 30"`
}

// IssueCreateRequest opens an issue (gated, kind vcs).
type IssueCreateRequest struct {
	Repo      string  `json:"repo,omitempty" doc:"the GitHub repository as OWNER/NAME (or a GitHub remote URL); default: the workspace repository's origin remote"`
	Title     string  `json:"title" doc:"the issue title"`
	Body      string  `json:"body,omitempty" doc:"the issue text in Markdown, at most 65536 characters"`
	Labels    Strings `json:"labels,omitempty" doc:"labels to set"`
	Assignees Strings `json:"assignees,omitempty" doc:"GitHub logins to assign"`
}

// PRListRequest lists a repository's pull requests.
type PRListRequest struct {
	Repo  string `json:"repo,omitempty" doc:"the GitHub repository as OWNER/NAME (or a GitHub remote URL); default: the workspace repository's origin remote"`
	State string `json:"state,omitempty" doc:"which pull requests; default open" enum:"open,closed,all"`
	Base  string `json:"base,omitempty" doc:"only pull requests into this base branch"`
	Head  string `json:"head,omitempty" doc:"only pull requests from this head, as user:branch or org:branch"`
	Limit int    `json:"limit,omitempty" doc:"most pull requests returned, 1 to 1000; default 30"`
}

// PRCreateRequest opens a pull request (gated, kind vcs).
type PRCreateRequest struct {
	Repo  string `json:"repo,omitempty" doc:"the GitHub repository as OWNER/NAME (or a GitHub remote URL); default: the workspace repository's origin remote"`
	Title string `json:"title" doc:"the pull request title"`
	Head  string `json:"head,omitempty" doc:"the branch with the changes (push it first); default: the workspace's current branch"`
	Base  string `json:"base,omitempty" doc:"the branch to merge into; default: the repository's default branch"`
	Body  string `json:"body,omitempty" doc:"the description in Markdown, at most 65536 characters"`
	Draft bool   `json:"draft,omitempty" doc:"open it as a draft; default false"`
}

// PRDiffRequest fetches a pull request's diff.
type PRDiffRequest struct {
	Repo   string `json:"repo,omitempty" doc:"the GitHub repository as OWNER/NAME (or a GitHub remote URL); default: the workspace repository's origin remote"`
	Number int    `json:"number" doc:"the pull request number"`
}

// Strings is a list that also accepts one comma-separated string in JSON.
type Strings []string

// JSONSchema is the shape UnmarshalJSON accepts (engine/schema): one string (comma-separated) or an array of strings.
func (Strings) JSONSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}
}

// UnmarshalJSON accepts ["a","b"] or "a,b".
func (s *Strings) UnmarshalJSON(raw []byte) error {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		*s = nil
		for _, p := range strings.Split(one, ",") {
			if p = strings.TrimSpace(p); p != "" {
				*s = append(*s, p)
			}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return envelope.Errorf(envelope.InvalidInput, "expected a string or an array of strings")
	}
	*s = many
	return nil
}

// scrub runs an action and removes the token from whatever it returns.
func scrub(ws *workspace.Workspace, fn func(c **client) (envelope.Envelope, error)) (envelope.Envelope, error) {
	var c *client
	env, err := fn(&c)
	if c == nil || len(c.token) < 4 {
		return env, err
	}
	if err != nil {
		if e, ok := err.(*envelope.Error); ok {
			e.Message = c.redact(e.Message)
			for k, v := range e.Details {
				if s, ok := v.(string); ok {
					e.Details[k] = c.redact(s)
				}
			}
			return env, e
		}
		return env, fmt.Errorf("%s", c.redact(err.Error()))
	}
	env.Summary = c.redact(env.Summary)
	for i, f := range env.Retention.Facts {
		env.Retention.Facts[i] = c.redact(f)
	}
	if env.Data != nil && !env.Pending() {
		if raw, err := json.Marshal(env.Data); err == nil && bytes.Contains(raw, []byte(c.token)) {
			env.Data = json.RawMessage(bytes.ReplaceAll(raw, []byte(c.token), []byte("[redacted]")))
		}
	}
	return env, nil
}

// User is the data of gh_auth.
type User struct {
	Login         string   `json:"login"`
	Name          string   `json:"name"`
	ID            int64    `json:"id"`
	Type          string   `json:"type"`
	URL           string   `json:"url"`
	APIURL        string   `json:"apiUrl"`
	TokenEnv      string   `json:"tokenEnv"`
	Scopes        []string `json:"scopes"`
	RateLimit     int      `json:"rateLimit,omitempty"`
	RateRemaining int      `json:"rateRemaining,omitempty"`
}

// Auth answers "who am I" for the token (GET /user). Never gated.
func Auth(ctx context.Context, ws *workspace.Workspace, req *AuthRequest) (envelope.Envelope, error) {
	return scrub(ws, func(cp **client) (envelope.Envelope, error) {
		c, err := newClient(ws, true)
		if err != nil {
			return envelope.Envelope{}, err
		}
		*cp = c
		var u struct {
			Login   string `json:"login"`
			Name    string `json:"name"`
			ID      int64  `json:"id"`
			Type    string `json:"type"`
			HTMLURL string `json:"html_url"`
		}
		r, err := c.getJSON(ctx, c.endpoint("/user", nil), &u)
		if err != nil {
			return envelope.Envelope{}, err
		}
		d := &User{Login: u.Login, Name: u.Name, ID: u.ID, Type: u.Type, URL: u.HTMLURL,
			APIURL: redactURL(c.base.String()), TokenEnv: c.tokenEnv, Scopes: []string{}}
		for _, s := range strings.Split(r.header.Get("X-OAuth-Scopes"), ",") {
			if s = strings.TrimSpace(s); s != "" {
				d.Scopes = append(d.Scopes, s)
			}
		}
		d.RateLimit, _ = strconv.Atoi(r.header.Get("X-RateLimit-Limit"))
		d.RateRemaining, _ = strconv.Atoi(r.header.Get("X-RateLimit-Remaining"))
		env := envelope.New("", fmt.Sprintf("Authenticated to %s as %s (token from $%s).", d.APIURL, d.Login, c.tokenEnv), d)
		env.Fact("GitHub user %s at %s", d.Login, d.APIURL)
		return env, nil
	})
}

// Issue is one issue in issue_list.
type Issue struct {
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	State     string    `json:"state"`
	Author    string    `json:"author"`
	Labels    []string  `json:"labels"`
	Assignees []string  `json:"assignees"`
	Comments  int       `json:"comments"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	URL       string    `json:"url"`
}

// apiIssue is the REST shape of an issue (the fields aw reads).
type apiIssue struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	State  string `json:"state"`
	User   *struct {
		Login string `json:"login"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Assignees []struct {
		Login string `json:"login"`
	} `json:"assignees"`
	Comments    int             `json:"comments"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	HTMLURL     string          `json:"html_url"`
	PullRequest json.RawMessage `json:"pull_request"`
}

func (a apiIssue) issue() Issue {
	i := Issue{Number: a.Number, Title: a.Title, State: a.State, Labels: []string{}, Assignees: []string{},
		Comments: a.Comments, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, URL: a.HTMLURL}
	if a.User != nil {
		i.Author = a.User.Login
	}
	for _, l := range a.Labels {
		i.Labels = append(i.Labels, l.Name)
	}
	for _, u := range a.Assignees {
		i.Assignees = append(i.Assignees, u.Login)
	}
	return i
}

// IssueList is the data of issue_list.
type IssueList struct {
	Repo          string  `json:"repo"`
	State         string  `json:"state"`
	Issues        []Issue `json:"issues"`
	Count         int     `json:"count"`
	Truncated     bool    `json:"truncated"`
	Authenticated bool    `json:"authenticated"`
	InlineCount   int     `json:"inlineCount,omitempty"`
}

func checkState(s string) (string, error) {
	switch s {
	case "":
		return "open", nil
	case "open", "closed", "all":
		return s, nil
	}
	return "", envelope.Errorf(envelope.InvalidInput, "state %q is not open, closed or all", s).With("state", s)
}

func checkLimit(n int) (int, error) {
	switch {
	case n == 0:
		return 30, nil
	case n < 1 || n > 1000:
		return 0, envelope.Errorf(envelope.InvalidInput, "limit %d is outside 1..1000", n).With("limit", n)
	}
	return n, nil
}

// ListIssues lists issues (GET /repos/{o}/{r}/issues), following the Link
// header's next pages up to limit; pull requests, which the endpoint also
// returns, are left out.
func ListIssues(ctx context.Context, ws *workspace.Workspace, req *IssueListRequest) (envelope.Envelope, error) {
	return scrub(ws, func(cp **client) (envelope.Envelope, error) {
		state, err := checkState(req.State)
		if err != nil {
			return envelope.Envelope{}, err
		}
		limit, err := checkLimit(req.Limit)
		if err != nil {
			return envelope.Envelope{}, err
		}
		repo, err := resolveRepo(ws, req.Repo)
		if err != nil {
			return envelope.Envelope{}, err
		}
		c, err := newClient(ws, false)
		if err != nil {
			return envelope.Envelope{}, err
		}
		*cp = c
		q := url.Values{"state": {state}, "per_page": {strconv.Itoa(min(100, limit))}}
		if len(req.Labels) > 0 {
			q.Set("labels", strings.Join(req.Labels, ","))
		}
		d := &IssueList{Repo: repo.String(), State: state, Issues: []Issue{}, Authenticated: c.token != ""}
		var decodeErr error
		more, err := c.paginate(ctx, c.endpoint(repoPath(repo, "/issues"), q), 50, func(page []json.RawMessage) bool {
			for _, raw := range page {
				var a apiIssue
				if err := json.Unmarshal(raw, &a); err != nil {
					decodeErr = err
					return false
				}
				if len(a.PullRequest) > 0 && string(a.PullRequest) != "null" {
					continue
				}
				if len(d.Issues) == limit {
					d.Truncated = true
					return false
				}
				d.Issues = append(d.Issues, a.issue())
			}
			return len(d.Issues) < limit
		})
		if err != nil {
			return envelope.Envelope{}, err
		}
		if decodeErr != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.NetworkError, "GitHub's issue list does not have the shape aw expects (%v); check github.apiUrl", decodeErr)
		}
		d.Truncated = d.Truncated || more
		d.Count = len(d.Issues)
		env := envelope.New("", "", d)
		if err := bound(ws, c, &env, &d.Issues, &d.InlineCount, "issues.json", "the full issue list"); err != nil {
			return envelope.Envelope{}, err
		}
		env.Summary = fmt.Sprintf("%d %s issue(s) in %s%s%s.", d.Count, stateWord(state), repo, moreNote(d.Truncated, limit), authNote(c))
		for i, is := range d.Issues {
			if i == 30 {
				break
			}
			env.Fact("issue #%d %s: %s", is.Number, is.State, envelope.Clip(is.Title, 80))
		}
		env.Omit("data.issues")
		return env, nil
	})
}

func stateWord(state string) string {
	if state == "all" {
		return "open or closed"
	}
	return state
}

func moreNote(truncated bool, limit int) string {
	if truncated {
		return fmt.Sprintf(" (the first %d; more exist: raise --limit, up to 1000)", limit)
	}
	return ""
}

func authNote(c *client) string {
	if c.token == "" {
		return fmt.Sprintf(" (unauthenticated: $%s is not set, so private repositories are invisible and the rate limit is small)", c.tokenEnv)
	}
	return ""
}

func repoPath(r Repo, rest string) string {
	return "/repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name) + rest
}

// bound keeps a listing within maxToolResultChars: a longer one goes whole
// (redacted) to an artifact added to env, and the prefix that fits stays
// inline with its length in inline.
func bound[T any](ws *workspace.Workspace, c *client, env *envelope.Envelope, list *[]T, inline *int, name, desc string) error {
	raw, err := json.MarshalIndent(*list, "", "  ")
	if err != nil {
		return err
	}
	max := ws.Settings.MaxToolResultChars
	if len(raw) <= max {
		return nil
	}
	art, err := ws.Store.WriteArtifact("github", name, []byte(c.redact(string(raw))+"\n"), desc)
	if err != nil {
		return err
	}
	used, n := 2, 0
	for _, it := range *list {
		one, _ := json.Marshal(it)
		if used+len(one)+1 > max {
			break
		}
		used += len(one) + 1
		n++
	}
	*list, *inline = (*list)[:n], n
	env.Artifacts = append(env.Artifacts, art)
	return nil
}

// Created is the data of issue_create and pr_create.
type Created struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	Title  string `json:"title"`
	State  string `json:"state"`
	URL    string `json:"url"`
	Head   string `json:"head,omitempty"`
	Base   string `json:"base,omitempty"`
	Draft  bool   `json:"draft,omitempty"`
}

const maxBody = 65536

func checkTitle(title string) (string, error) {
	t := strings.TrimSpace(title)
	if t == "" {
		return "", envelope.Errorf(envelope.InvalidInput, "title is required (--title)").With("field", "title")
	}
	if utf8.RuneCountInString(t) > 1024 {
		return "", envelope.Errorf(envelope.InvalidInput, "title is %d characters; keep it under 1024 and put the rest in the body", utf8.RuneCountInString(t)).With("field", "title")
	}
	return t, nil
}

func checkBody(body string) error {
	if utf8.RuneCountInString(body) > maxBody {
		return envelope.Errorf(envelope.InvalidInput, "body is %d characters; GitHub takes at most %d", utf8.RuneCountInString(body), maxBody).With("field", "body")
	}
	return nil
}

// gated asks the gate whether a GitHub write may run: it stages in Manual
// mode, needs an approved plan in Plan mode and runs in Auto.
func gated(ws *workspace.Workspace, title string, args map[string]any) (gate.Decision, error) {
	return gate.Check(ws, gate.Operation{
		Kind:   "vcs",
		Title:  title,
		Hash:   gate.Hash(args),
		Resume: gate.Resume{Tool: "workspace_vcs", Arguments: args},
		Review: reviewText(args),
	})
}

func reviewText(args map[string]any) string {
	raw, _ := json.MarshalIndent(args, "", "  ")
	return string(raw)
}

// CreateIssue opens an issue (POST /repos/{o}/{r}/issues); gated, kind vcs.
func CreateIssue(ctx context.Context, ws *workspace.Workspace, req *IssueCreateRequest) (envelope.Envelope, error) {
	return scrub(ws, func(cp **client) (envelope.Envelope, error) {
		title, err := checkTitle(req.Title)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if err := checkBody(req.Body); err != nil {
			return envelope.Envelope{}, err
		}
		repo, err := resolveRepo(ws, req.Repo)
		if err != nil {
			return envelope.Envelope{}, err
		}
		c, err := newClient(ws, true)
		if err != nil {
			return envelope.Envelope{}, err
		}
		*cp = c
		args := map[string]any{"action": "issue_create", "repo": repo.String(), "title": title}
		body := map[string]any{"title": title}
		if req.Body != "" {
			args["body"], body["body"] = req.Body, req.Body
		}
		if len(req.Labels) > 0 {
			args["labels"], body["labels"] = []string(req.Labels), []string(req.Labels)
		}
		if len(req.Assignees) > 0 {
			args["assignees"], body["assignees"] = []string(req.Assignees), []string(req.Assignees)
		}
		d, err := gated(ws, fmt.Sprintf("Create issue in %s: %s", repo, envelope.Clip(title, 80)), args)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if d.Staged != nil {
			return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
		}
		u := c.endpoint(repoPath(repo, "/issues"), nil)
		r, err := c.do(ctx, http.MethodPost, u, body, "", maxJSONBytes)
		if err != nil {
			return envelope.Envelope{}, err
		}
		var a apiIssue
		if err := c.decode(r, u, &a); err != nil {
			return envelope.Envelope{}, err
		}
		if err := gate.Consume(ws, d.Approval); err != nil {
			return envelope.Envelope{}, err
		}
		out := &Created{Repo: repo.String(), Number: a.Number, Title: a.Title, State: a.State, URL: a.HTMLURL}
		env := envelope.New("", fmt.Sprintf("Created issue #%d in %s: %s", a.Number, repo, a.HTMLURL), out)
		env.Retention.Importance = envelope.High
		env.Fact("created issue #%d in %s: %s", a.Number, repo, envelope.Clip(a.Title, 80))
		return env, nil
	})
}

// PR is one pull request in pr_list.
type PR struct {
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	State     string    `json:"state"`
	Draft     bool      `json:"draft"`
	Author    string    `json:"author"`
	Head      string    `json:"head"`
	Base      string    `json:"base"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	URL       string    `json:"url"`
}

type apiPR struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	State  string `json:"state"`
	Draft  bool   `json:"draft"`
	User   *struct {
		Login string `json:"login"`
	} `json:"user"`
	Head struct {
		Ref   string `json:"ref"`
		Label string `json:"label"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	HTMLURL   string    `json:"html_url"`
}

func (a apiPR) pr() PR {
	p := PR{Number: a.Number, Title: a.Title, State: a.State, Draft: a.Draft, Head: a.Head.Ref, Base: a.Base.Ref,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, URL: a.HTMLURL}
	if a.User != nil {
		p.Author = a.User.Login
	}
	return p
}

// PRList is the data of pr_list.
type PRList struct {
	Repo          string `json:"repo"`
	State         string `json:"state"`
	PullRequests  []PR   `json:"pullRequests"`
	Count         int    `json:"count"`
	Truncated     bool   `json:"truncated"`
	Authenticated bool   `json:"authenticated"`
	InlineCount   int    `json:"inlineCount,omitempty"`
}

// ListPRs lists pull requests (GET /repos/{o}/{r}/pulls) up to limit.
func ListPRs(ctx context.Context, ws *workspace.Workspace, req *PRListRequest) (envelope.Envelope, error) {
	return scrub(ws, func(cp **client) (envelope.Envelope, error) {
		state, err := checkState(req.State)
		if err != nil {
			return envelope.Envelope{}, err
		}
		limit, err := checkLimit(req.Limit)
		if err != nil {
			return envelope.Envelope{}, err
		}
		repo, err := resolveRepo(ws, req.Repo)
		if err != nil {
			return envelope.Envelope{}, err
		}
		c, err := newClient(ws, false)
		if err != nil {
			return envelope.Envelope{}, err
		}
		*cp = c
		q := url.Values{"state": {state}, "per_page": {strconv.Itoa(min(100, limit))}}
		if req.Base != "" {
			q.Set("base", req.Base)
		}
		if req.Head != "" {
			q.Set("head", req.Head)
		}
		d := &PRList{Repo: repo.String(), State: state, PullRequests: []PR{}, Authenticated: c.token != ""}
		var decodeErr error
		more, err := c.paginate(ctx, c.endpoint(repoPath(repo, "/pulls"), q), 50, func(page []json.RawMessage) bool {
			for _, raw := range page {
				if len(d.PullRequests) == limit {
					d.Truncated = true
					return false
				}
				var a apiPR
				if err := json.Unmarshal(raw, &a); err != nil {
					decodeErr = err
					return false
				}
				d.PullRequests = append(d.PullRequests, a.pr())
			}
			return len(d.PullRequests) < limit
		})
		if err != nil {
			return envelope.Envelope{}, err
		}
		if decodeErr != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.NetworkError, "GitHub's pull request list does not have the shape aw expects (%v); check github.apiUrl", decodeErr)
		}
		d.Truncated = d.Truncated || more
		d.Count = len(d.PullRequests)
		env := envelope.New("", "", d)
		if err := bound(ws, c, &env, &d.PullRequests, &d.InlineCount, "pulls.json", "the full pull request list"); err != nil {
			return envelope.Envelope{}, err
		}
		env.Summary = fmt.Sprintf("%d %s pull request(s) in %s%s%s.", d.Count, stateWord(state), repo, moreNote(d.Truncated, limit), authNote(c))
		for i, p := range d.PullRequests {
			if i == 30 {
				break
			}
			env.Fact("PR #%d %s %s→%s: %s", p.Number, p.State, p.Head, p.Base, envelope.Clip(p.Title, 80))
		}
		env.Omit("data.pullRequests")
		return env, nil
	})
}

// CreatePR opens a pull request (POST /repos/{o}/{r}/pulls); gated, kind
// vcs. head defaults to the workspace's current branch, resolved before
// the gate so the approval names it; base defaults to the repository's
// default branch, asked of GitHub once the call runs.
func CreatePR(ctx context.Context, ws *workspace.Workspace, req *PRCreateRequest) (envelope.Envelope, error) {
	return scrub(ws, func(cp **client) (envelope.Envelope, error) {
		title, err := checkTitle(req.Title)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if err := checkBody(req.Body); err != nil {
			return envelope.Envelope{}, err
		}
		repo, err := resolveRepo(ws, req.Repo)
		if err != nil {
			return envelope.Envelope{}, err
		}
		head := strings.TrimSpace(req.Head)
		if head == "" {
			head = currentBranch(ws.Root)
		}
		if head == "" {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput,
				"head is required: pass --head BRANCH (the workspace has no current branch to default to)").With("field", "head")
		}
		c, err := newClient(ws, true)
		if err != nil {
			return envelope.Envelope{}, err
		}
		*cp = c
		args := map[string]any{"action": "pr_create", "repo": repo.String(), "title": title, "head": head}
		if req.Base != "" {
			args["base"] = req.Base
		}
		if req.Body != "" {
			args["body"] = req.Body
		}
		if req.Draft {
			args["draft"] = true
		}
		onto := req.Base
		if onto == "" {
			onto = "the default branch"
		}
		d, err := gated(ws, fmt.Sprintf("Open PR in %s: %s into %s: %s", repo, head, onto, envelope.Clip(title, 60)), args)
		if err != nil {
			return envelope.Envelope{}, err
		}
		if d.Staged != nil {
			return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
		}
		base := req.Base
		if base == "" {
			var info struct {
				DefaultBranch string `json:"default_branch"`
			}
			if _, err := c.getJSON(ctx, c.endpoint(repoPath(repo, ""), nil), &info); err != nil {
				return envelope.Envelope{}, err
			}
			if base = info.DefaultBranch; base == "" {
				return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "GitHub did not name a default branch for %s; pass --base BRANCH", repo)
			}
		}
		body := map[string]any{"title": title, "head": head, "base": base}
		if req.Body != "" {
			body["body"] = req.Body
		}
		if req.Draft {
			body["draft"] = true
		}
		u := c.endpoint(repoPath(repo, "/pulls"), nil)
		r, err := c.do(ctx, http.MethodPost, u, body, "", maxJSONBytes)
		if err != nil {
			return envelope.Envelope{}, err
		}
		var a apiPR
		if err := c.decode(r, u, &a); err != nil {
			return envelope.Envelope{}, err
		}
		if err := gate.Consume(ws, d.Approval); err != nil {
			return envelope.Envelope{}, err
		}
		out := &Created{Repo: repo.String(), Number: a.Number, Title: a.Title, State: a.State, URL: a.HTMLURL, Head: a.Head.Ref, Base: a.Base.Ref, Draft: a.Draft}
		env := envelope.New("", fmt.Sprintf("Opened pull request #%d in %s (%s into %s): %s", a.Number, repo, out.Head, out.Base, a.HTMLURL), out)
		env.Retention.Importance = envelope.High
		env.Fact("opened PR #%d in %s (%s→%s): %s", a.Number, repo, out.Head, out.Base, envelope.Clip(a.Title, 80))
		return env, nil
	})
}

// DiffFile is one file of a pull request's diff.
type DiffFile struct {
	Path      string `json:"path"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// PRDiff is the data of pr_diff.
type PRDiff struct {
	Repo      string     `json:"repo"`
	Number    int        `json:"number"`
	Files     []DiffFile `json:"files"`
	Additions int        `json:"additions"`
	Deletions int        `json:"deletions"`
	Bytes     int        `json:"bytes"`
	Diff      string     `json:"diff"`
	Truncated bool       `json:"truncated"`
}

// DiffPR fetches a pull request's unified diff (GET the pull with Accept:
// application/vnd.github.diff): bounded inline by maxToolResultChars, the
// whole diff stored as an artifact.
func DiffPR(ctx context.Context, ws *workspace.Workspace, req *PRDiffRequest) (envelope.Envelope, error) {
	return scrub(ws, func(cp **client) (envelope.Envelope, error) {
		if req.Number < 1 {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "number is required: the pull request number (`aw vcs pr-list` shows them)").With("field", "number")
		}
		repo, err := resolveRepo(ws, req.Repo)
		if err != nil {
			return envelope.Envelope{}, err
		}
		c, err := newClient(ws, false)
		if err != nil {
			return envelope.Envelope{}, err
		}
		*cp = c
		r, err := c.do(ctx, http.MethodGet, c.endpoint(repoPath(repo, "/pulls/"+strconv.Itoa(req.Number)), nil), nil, "application/vnd.github.diff", maxDiffBytes)
		if err != nil {
			return envelope.Envelope{}, err
		}
		text := c.redact(string(r.body))
		d := &PRDiff{Repo: repo.String(), Number: req.Number, Files: diffFiles(text), Bytes: len(text)}
		for _, f := range d.Files {
			d.Additions += f.Additions
			d.Deletions += f.Deletions
		}
		art, err := ws.Store.WriteArtifact("diff", fmt.Sprintf("%s-%s-pr%d.diff", repo.Owner, repo.Name, req.Number), []byte(text), fmt.Sprintf("the full diff of %s#%d", repo, req.Number))
		if err != nil {
			return envelope.Envelope{}, err
		}
		d.Diff = text
		if max := ws.Settings.MaxToolResultChars; len(text) > max {
			d.Diff, d.Truncated = envelope.Clip(text, max), true
		}
		summary := fmt.Sprintf("Pull request #%d in %s: %d file(s), +%d -%d.", req.Number, repo, len(d.Files), d.Additions, d.Deletions)
		if d.Truncated {
			summary += fmt.Sprintf(" The diff is %d bytes; the first %d are inline and the whole diff is %s.", len(text), ws.Settings.MaxToolResultChars, art.Path)
		}
		env := envelope.New("", summary+authNote(c), d)
		env.Artifacts = []envelope.Artifact{art}
		env.Fact("PR #%d in %s: %d files, +%d -%d; full diff %s", req.Number, repo, len(d.Files), d.Additions, d.Deletions, art.Path)
		env.Omit("data.diff", "data.files")
		return env, nil
	})
}

// diffFiles counts added and deleted lines per file of a unified git diff.
func diffFiles(text string) []DiffFile {
	files := []DiffFile{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var cur *DiffFile
	inHunk := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			files = append(files, DiffFile{Path: diffPath(line)})
			cur, inHunk = &files[len(files)-1], false
		case cur == nil:
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case !inHunk && strings.HasPrefix(line, "+++ "):
			if p := strings.TrimPrefix(line, "+++ "); p != "/dev/null" {
				cur.Path = strings.TrimPrefix(p, "b/")
			}
		case inHunk && strings.HasPrefix(line, "+"):
			cur.Additions++
		case inHunk && strings.HasPrefix(line, "-"):
			cur.Deletions++
		}
	}
	return files
}

// diffPath reads "diff --git a/X b/X" (the b/ side).
func diffPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.Index(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}
