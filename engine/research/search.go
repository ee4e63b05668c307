package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/netguard"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Result is one search hit; scripts rely on its field names.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Attempt is one provider tried by a search, in order: auto's fall-back is
// visible in data.attempts.
type Attempt struct {
	Provider   string `json:"provider"`
	OK         bool   `json:"ok"`
	Results    int    `json:"results"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
}

// Providers are the values of research.provider (chain: what auto tries).
var Providers = []string{"auto", "duckduckgo", "wikipedia", "searxng"}

const (
	maxSearchBody   = 4 << 20
	searchTimeout   = 20 * time.Second
	maxSnippetChars = 500
)

// chain is the providers a search tries, in order: a named provider alone;
// auto is searxng when configured, else duckduckgo, then wikipedia.
func chain(s *workspace.Settings, provider string) ([]string, error) {
	if provider == "" {
		provider = s.Research.Provider
	}
	switch provider {
	case "", "auto":
		if s.Research.SearxngURL != "" {
			return []string{"searxng", "wikipedia"}, nil
		}
		return []string{"duckduckgo", "wikipedia"}, nil
	case "duckduckgo", "wikipedia":
		return []string{provider}, nil
	case "searxng":
		if s.Research.SearxngURL == "" {
			return nil, envelope.Errorf(envelope.InvalidInput, "provider searxng needs an instance: a human sets research.searxngUrl (`aw config set research.searxngUrl https://searx.example/`); or use duckduckgo, wikipedia or auto").With("setting", "research.searxngUrl")
		}
		return []string{provider}, nil
	}
	return nil, envelope.Errorf(envelope.InvalidInput, "provider %q is not one of %s", provider, strings.Join(Providers, ", ")).With("field", "provider")
}

// searcher runs provider requests. Provider endpoints are settings a human
// chose (a self-hosted SearXNG often runs on this machine), so they are not
// held to the private-network rule that guards URLs an agent names; they
// are still http(s) only, never proxied, bounded in size, time and hops.
type searcher struct {
	client *http.Client
	s      *workspace.Settings
}

func newSearcher(s *workspace.Settings) *searcher {
	g := netguard.Guard{AllowPrivate: true}
	return &searcher{s: s, client: &http.Client{
		Transport: g.Transport(),
		Timeout:   searchTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 3 {
				return errors.New("stopped after 3 redirects")
			}
			_, err := g.CheckURL(req.URL)
			return err
		},
	}}
}

func (sr *searcher) run(ctx context.Context, provider, query string, limit int) ([]Result, error) {
	switch provider {
	case "duckduckgo":
		return sr.duckduckgo(ctx, query, limit)
	case "wikipedia":
		return sr.wikipedia(ctx, query, limit)
	case "searxng":
		return sr.searxng(ctx, query, limit)
	}
	return nil, fmt.Errorf("unknown provider %s", provider)
}

func endpoint(raw, key string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("setting research.%s %q is not an http(s) URL", key, raw)
	}
	return u, nil
}

// get performs one provider request and returns the body (bounded).
func (sr *searcher) get(ctx context.Context, u *url.URL, accept string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", accept)
	resp, err := sr.client.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchBody))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s from %s%s", resp.Status, u.Host, u.Path)
	}
	return body, nil
}

// duckduckgo reads the result list of DuckDuckGo's HTML endpoint:
// div.result blocks with a.result__a (the title, its href a
// //duckduckgo.com/l/?uddg=<target> redirect) and .result__snippet; ads
// (result--ad) are skipped.
func (sr *searcher) duckduckgo(ctx context.Context, query string, limit int) ([]Result, error) {
	u, err := endpoint(sr.s.Research.DuckDuckGoURL, "duckduckgoUrl")
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("q", query)
	u.RawQuery = q.Encode()
	body, err := sr.get(ctx, u, "text/html")
	if err != nil {
		return nil, err
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	out := []Result{}
	doc.Find(".result").Each(func(_ int, s *goquery.Selection) {
		if len(out) >= limit || s.HasClass("result--ad") {
			return
		}
		a := s.Find("a.result__a").First()
		href, ok := a.Attr("href")
		if !ok {
			return
		}
		target := ddgTarget(u, href)
		if target == "" {
			return
		}
		out = append(out, Result{Title: collapse(a.Text()), URL: target, Snippet: clipRunes(collapse(s.Find(".result__snippet").First().Text()), maxSnippetChars)})
	})
	if len(out) == 0 && doc.Find(".no-results, .result--no-result").Length() == 0 && !strings.Contains(string(body), "No results.") {
		if doc.Find(".anomaly-modal__title, #challenge-form, form[action*=anomaly]").Length() > 0 {
			return nil, errors.New("DuckDuckGo answered with a bot challenge instead of results")
		}
		return nil, errors.New("DuckDuckGo's page held no result list (its markup may have changed, or it refused the request)")
	}
	return out, nil
}

// ddgTarget resolves a result link: DuckDuckGo wraps targets in
// /l/?uddg=<url-encoded target>; ad clicks go through /y.js and are dropped.
func ddgTarget(base *url.URL, href string) string {
	u, err := base.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Host, "duckduckgo.com") || u.Host == base.Host {
		if u.Path == "/y.js" {
			return ""
		}
		if t := u.Query().Get("uddg"); t != "" {
			if tu, err := url.Parse(t); err == nil && (tu.Scheme == "http" || tu.Scheme == "https") {
				return tu.String()
			}
			return ""
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// wikipedia uses the MediaWiki search API (action=query&list=search) and
// links each title to /wiki/<Title> on the same host.
func (sr *searcher) wikipedia(ctx context.Context, query string, limit int) ([]Result, error) {
	u, err := endpoint(sr.s.Research.WikipediaURL, "wikipediaUrl")
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("action", "query")
	q.Set("list", "search")
	q.Set("srsearch", query)
	q.Set("srlimit", fmt.Sprint(limit))
	q.Set("srprop", "snippet")
	q.Set("format", "json")
	q.Set("formatversion", "2")
	q.Set("utf8", "1")
	u.RawQuery = q.Encode()
	body, err := sr.get(ctx, u, "application/json")
	if err != nil {
		return nil, err
	}
	var r struct {
		Error *struct {
			Code string `json:"code"`
			Info string `json:"info"`
		} `json:"error"`
		Query *struct {
			Search []struct {
				Title   string `json:"title"`
				Snippet string `json:"snippet"`
			} `json:"search"`
		} `json:"query"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the MediaWiki API answered something that is not its JSON: %v", err)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("MediaWiki API error %s: %s", r.Error.Code, r.Error.Info)
	}
	if r.Query == nil {
		return nil, errors.New("the MediaWiki API answer has no query.search list")
	}
	out := []Result{}
	for _, h := range r.Query.Search {
		if len(out) >= limit {
			break
		}
		// MediaWiki's own page URLs keep ( ) : , unescaped.
		name := strings.ReplaceAll(h.Title, " ", "_")
		raw := strings.NewReplacer("%28", "(", "%29", ")", "%3A", ":", "%2C", ",").Replace(url.PathEscape(name))
		page := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/wiki/" + name, RawPath: "/wiki/" + raw}
		out = append(out, Result{Title: h.Title, URL: page.String(), Snippet: clipRunes(stripTags(h.Snippet), maxSnippetChars)})
	}
	return out, nil
}

// searxng uses an instance's JSON API (/search?q=…&format=json; the
// instance must list json under search.formats).
func (sr *searcher) searxng(ctx context.Context, query string, limit int) ([]Result, error) {
	u, err := endpoint(sr.s.Research.SearxngURL, "searxngUrl")
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(u.Path, "/search") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	body, err := sr.get(ctx, u, "application/json")
	if err != nil {
		if strings.Contains(err.Error(), "HTTP 403") {
			err = fmt.Errorf("%v: the instance may not allow format=json (search.formats in its settings.yml)", err)
		}
		return nil, err
	}
	var r struct {
		Results []struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
		} `json:"results"`
		Unresponsive [][]any `json:"unresponsive_engines"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the SearXNG instance answered something that is not its JSON: %v", err)
	}
	out := []Result{}
	for _, h := range r.Results {
		if len(out) >= limit {
			break
		}
		tu, err := url.Parse(h.URL)
		if err != nil || (tu.Scheme != "http" && tu.Scheme != "https") {
			continue
		}
		out = append(out, Result{Title: collapse(h.Title), URL: tu.String(), Snippet: clipRunes(collapse(h.Content), maxSnippetChars)})
	}
	return out, nil
}

// stripTags reads an HTML fragment (a MediaWiki snippet) as text.
func stripTags(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return collapse(b.String())
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}
