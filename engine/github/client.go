// Package github owns aw's GitHub actions (workspace_vcs: gh_auth,
// issue_list, issue_create, pr_list, pr_create, pr_diff) over the REST API
// with net/http: base URL github.apiUrl, so GitHub Enterprise works, and the
// token from the environment variable github.tokenEnv names. It must never
// let the token reach an envelope, an artifact, an error message or a log:
// the token lives only in the Authorization header of requests to
// github.apiUrl, and every string that leaves the package is scrubbed of it.
// It never prints and runs no process (no gh, no git).
package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Getenv reads the token variable; tests of the engine replace it.
var Getenv = os.Getenv

// Response bodies are read whole, so they are capped.
const (
	maxJSONBytes = 32 << 20
	maxDiffBytes = 64 << 20
	timeout      = 60 * time.Second
)

// client talks to one GitHub REST API on behalf of one call.
type client struct {
	base     *url.URL // github.apiUrl, without a trailing slash
	token    string   // "" for unauthenticated reads
	tokenEnv string
	http     *http.Client
}

// newClient reads github.apiUrl and the token. needToken refuses to go on
// without one (writes and gh_auth); reads may go unauthenticated.
func newClient(ws *workspace.Workspace, needToken bool) (*client, error) {
	raw := strings.TrimRight(ws.Settings.GitHub.APIURL, "/")
	base, err := url.Parse(raw)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, envelope.Errorf(envelope.InvalidInput,
			"github.apiUrl %q is not an http(s) URL; a human can fix it with `aw config set github.apiUrl https://api.github.com` (GitHub Enterprise: https://HOST/api/v3)", redactURL(raw)).With("setting", "github.apiUrl")
	}
	env := ws.Settings.GitHub.TokenEnv
	c := &client{base: base, tokenEnv: env, token: strings.TrimSpace(Getenv(env))}
	if env == "" {
		c.token = ""
	}
	if needToken && c.token == "" {
		return nil, c.noToken()
	}
	c.http = &http.Client{
		Timeout: timeout,
		// Redirects stay on the API's host: the token must never follow a
		// redirect elsewhere (net/http drops it on a cross-host redirect
		// too; this refuses the request instead of sending it bare).
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if !c.sameOrigin(req.URL) {
				return fmt.Errorf("refusing a redirect to %s, outside github.apiUrl", redactURL(req.URL.String()))
			}
			return nil
		},
	}
	return c, nil
}

func (c *client) noToken() error {
	if c.tokenEnv == "" {
		return envelope.Errorf(envelope.InvalidInput,
			"no GitHub token: github.tokenEnv is empty. A human can name the variable that holds the token with `aw config set github.tokenEnv GH_TOKEN`, then export GH_TOKEN=<token>").With("setting", "github.tokenEnv")
	}
	return envelope.Errorf(envelope.InvalidInput,
		"no GitHub token: the environment variable %s (named by github.tokenEnv) is not set. Export a token in the environment aw runs in (export %s=<a personal access token with repo access>), or point github.tokenEnv at another variable with `aw config set github.tokenEnv NAME`", c.tokenEnv, c.tokenEnv).With("tokenEnv", c.tokenEnv)
}

// sameOrigin reports whether u is on the API's scheme, host and path.
func (c *client) sameOrigin(u *url.URL) bool {
	return u.Scheme == c.base.Scheme && strings.EqualFold(u.Host, c.base.Host) &&
		(c.base.Path == "" || u.Path == c.base.Path || strings.HasPrefix(u.Path, c.base.Path+"/"))
}

// endpoint is the API URL of path ("/repos/o/r/issues") with query.
func (c *client) endpoint(path string, q url.Values) *url.URL {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawPath = ""
	u.RawQuery = q.Encode()
	return &u
}

// response is one answer of the API.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request. body, when not nil, is sent as JSON. Any answer
// outside 2xx becomes a typed error (apiError).
func (c *client) do(ctx context.Context, method string, u *url.URL, body any, accept string, limit int64) (*response, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, envelope.Errorf(envelope.InvalidInput, "cannot build the request to %s: %v", redactURL(u.String()), c.redact(err.Error()))
	}
	if accept == "" {
		accept = "application/vnd.github+json"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "aw")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		what := "cannot reach"
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") {
			what = fmt.Sprintf("no answer within %s from", timeout)
		}
		return nil, envelope.Errorf(envelope.NetworkError,
			"%s GitHub at %s (%s %s): %s; check the network and github.apiUrl, then retry", what, redactURL(c.base.String()), method, u.Path, c.redact(transportCause(err))).With("url", redactURL(u.String()))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, envelope.Errorf(envelope.NetworkError, "reading GitHub's answer to %s %s failed: %s; retry", method, u.Path, c.redact(err.Error()))
	}
	if int64(len(raw)) > limit {
		return nil, envelope.Errorf(envelope.NetworkError, "GitHub's answer to %s %s is larger than %d bytes; aw does not read it whole", method, u.Path, limit)
	}
	r := &response{status: resp.StatusCode, header: resp.Header, body: raw}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.apiError(method, u, r)
	}
	return r, nil
}

// transportCause is the innermost message of a transport error, without
// the URL that url.Error repeats.
func transportCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// getJSON GETs u and decodes the answer into v.
func (c *client) getJSON(ctx context.Context, u *url.URL, v any) (*response, error) {
	r, err := c.do(ctx, http.MethodGet, u, nil, "", maxJSONBytes)
	if err != nil {
		return nil, err
	}
	return r, c.decode(r, u, v)
}

func (c *client) decode(r *response, u *url.URL, v any) error {
	if err := json.Unmarshal(r.body, v); err != nil {
		return envelope.Errorf(envelope.NetworkError,
			"GitHub's answer to %s is not the JSON aw expects (%v); check that github.apiUrl (%s) is a GitHub REST API", u.Path, err, redactURL(c.base.String()))
	}
	return nil
}

// apiMessage is GitHub's error body.
type apiMessage struct {
	Message          string `json:"message"`
	DocumentationURL string `json:"documentation_url"`
	Errors           []struct {
		Resource string `json:"resource"`
		Field    string `json:"field"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"errors"`
}

func (m apiMessage) String() string {
	s := strings.TrimSpace(m.Message)
	var more []string
	for _, e := range m.Errors {
		switch {
		case e.Message != "":
			more = append(more, e.Message)
		case e.Field != "":
			more = append(more, fmt.Sprintf("%s %s %s", e.Resource, e.Field, e.Code))
		case e.Code != "":
			more = append(more, e.Code)
		}
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, "; ") + ")"
	}
	if s == "" {
		s = "no message"
	}
	return s
}

// apiError maps an answer outside 2xx to an error that says what to do:
// 401 names the token variable, 403/429 rate limits say when to retry,
// 404 is NOT_FOUND, anything else NETWORK_ERROR with GitHub's message.
func (c *client) apiError(method string, u *url.URL, r *response) error {
	var m apiMessage
	_ = json.Unmarshal(r.body, &m)
	msg := c.redact(envelope.Clip(m.String(), 1000))
	call := method + " " + strings.TrimPrefix(u.Path, c.base.Path)
	switch {
	case r.status == http.StatusUnauthorized:
		hint := fmt.Sprintf("GitHub rejected the token in $%s (401 %s): it is wrong, expired or revoked. Export a valid token (export %s=<token>) in the environment aw runs in, or point github.tokenEnv at another variable with `aw config set github.tokenEnv NAME`", c.tokenEnv, msg, c.tokenEnv)
		if c.token == "" {
			hint = fmt.Sprintf("GitHub requires authentication for %s (401 %s): export a token in $%s (export %s=<token>), or point github.tokenEnv at another variable with `aw config set github.tokenEnv NAME`", call, msg, c.tokenEnv, c.tokenEnv)
		}
		return envelope.Errorf(envelope.NetworkError, "%s", hint).With("status", r.status).With("tokenEnv", c.tokenEnv)
	case (r.status == http.StatusForbidden || r.status == http.StatusTooManyRequests) && isRateLimit(r, m):
		return c.rateLimitError(call, r, msg)
	case r.status == http.StatusNotFound:
		return envelope.Errorf(envelope.NotFound,
			"GitHub has nothing at %s (404 %s): check the owner/name and the number; a private repository also answers 404 to a token (or no token) without access to it", call, msg).With("status", r.status)
	case r.status == http.StatusForbidden:
		return envelope.Errorf(envelope.NetworkError,
			"GitHub refused %s (403 %s): the token in $%s lacks the permission this needs; use a token with access to the repository", call, msg, c.tokenEnv).With("status", r.status)
	}
	return envelope.Errorf(envelope.NetworkError, "GitHub answered %s with %d: %s", call, r.status, msg).With("status", r.status)
}

func isRateLimit(r *response, m apiMessage) bool {
	return r.header.Get("X-RateLimit-Remaining") == "0" || r.header.Get("Retry-After") != "" ||
		strings.Contains(strings.ToLower(m.Message), "rate limit")
}

// Clock is the time rate-limit messages are computed against.
var Clock = time.Now

// rateLimitError says when to retry, following GitHub's rules: Retry-After
// seconds first, then X-RateLimit-Reset when nothing remains, else a minute.
func (c *client) rateLimitError(call string, r *response, msg string) error {
	now := Clock()
	e := envelope.Errorf(envelope.NetworkError, "").With("status", r.status).With("rateLimited", true)
	var when string
	if s, err := strconv.Atoi(strings.TrimSpace(r.header.Get("Retry-After"))); err == nil && s >= 0 {
		at := now.Add(time.Duration(s) * time.Second).UTC()
		when = fmt.Sprintf("retry after %d seconds (at %s)", s, at.Format(time.RFC3339))
		e.With("retryAfterSeconds", s).With("retryAt", at.Format(time.RFC3339))
	} else if reset, err := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64); err == nil && r.header.Get("X-RateLimit-Remaining") == "0" {
		at := time.Unix(reset, 0).UTC()
		wait := int(at.Sub(now).Round(time.Second).Seconds())
		if wait < 0 {
			wait = 0
		}
		when = fmt.Sprintf("the limit resets at %s (in %d seconds); retry after that", at.Format(time.RFC3339), wait)
		e.With("retryAfterSeconds", wait).With("retryAt", at.Format(time.RFC3339))
	} else {
		when = "wait at least a minute before retrying, longer on each further refusal"
		e.With("retryAfterSeconds", 60)
	}
	if l := r.header.Get("X-RateLimit-Limit"); l != "" {
		e.With("limit", l)
	}
	e.Message = fmt.Sprintf("GitHub rate limit hit on %s (%d %s): %s", call, r.status, msg, when)
	if c.token == "" {
		e.Message += fmt.Sprintf("; unauthenticated calls share a small limit per address: export a token in $%s for a larger one", c.tokenEnv)
	}
	return e
}

// redact removes the token from s. Nothing that leaves the package may
// carry it, even when a server echoes it back.
func (c *client) redact(s string) string {
	if c == nil || len(c.token) < 4 {
		return s
	}
	return strings.ReplaceAll(s, c.token, "[redacted]")
}

// redactURL drops credentials from a URL (a remote or an API URL may carry
// user:password@).
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// nextLink returns the rel="next" URL of a Link header ("" when none).
func nextLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		for _, part := range strings.Split(v, ",") {
			segs := strings.Split(part, ";")
			if len(segs) < 2 {
				continue
			}
			target := strings.TrimSpace(segs[0])
			if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range segs[1:] {
				p = strings.TrimSpace(p)
				if k, val, ok := strings.Cut(p, "="); ok && strings.TrimSpace(k) == "rel" {
					for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
						if rel == "next" {
							return target[1 : len(target)-1]
						}
					}
				}
			}
		}
	}
	return ""
}

// paginate GETs u and every rel="next" page after it, handing each page's
// JSON array to page until page returns false. It reports whether more
// pages were left unread.
func (c *client) paginate(ctx context.Context, u *url.URL, maxPages int, page func(raw []json.RawMessage) bool) (more bool, err error) {
	for n := 0; ; n++ {
		var items []json.RawMessage
		r, err := c.getJSON(ctx, u, &items)
		if err != nil {
			return false, err
		}
		next := nextLink(r.header)
		if !page(items) {
			return next != "", nil
		}
		if next == "" {
			return false, nil
		}
		if n+1 >= maxPages {
			return true, nil
		}
		nu, err := url.Parse(next)
		if err != nil {
			return false, envelope.Errorf(envelope.NetworkError, "GitHub's Link header has a next page aw cannot parse; retry with a smaller limit")
		}
		nu = u.ResolveReference(nu)
		if !c.sameOrigin(nu) {
			return false, envelope.Errorf(envelope.NetworkError,
				"GitHub's Link header points the next page outside github.apiUrl (%s); aw does not follow it, since the token would go there", redactURL(nu.Scheme+"://"+nu.Host))
		}
		u = nu
	}
}
