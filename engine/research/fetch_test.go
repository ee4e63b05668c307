package research

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/netguard"
)

// pageServer serves the fixtures of testdata/pages with the content types
// real servers send, and the special routes: a redirect chain, a redirect
// loop, 404 and 500 pages, a server that never answers, binary types and a
// 20 MB page.
func pageServer(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	types := map[string]string{
		"sjis.html":    "text/html; charset=Shift_JIS", // declared only in the header
		"cp1252.html":  "text/html",                    // declared only in a meta element
		"package.json": "application/json",
		"notes.txt":    "text/plain; charset=utf-8",
	}
	mux.HandleFunc("/pages/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/pages/")
		raw, err := os.ReadFile(filepath.Join("testdata", "pages", name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		ct := types[name]
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.Write(raw)
	})
	mux.HandleFunc("/r/", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/r/1":
			http.Redirect(w, r, "/r/2", http.StatusFound)
		case "/r/2":
			http.Redirect(w, r, "3", http.StatusMovedPermanently) // relative Location
		case "/r/3":
			http.Redirect(w, r, "/pages/docs.html", http.StatusTemporaryRedirect)
		}
	})
	mux.HandleFunc("/loop/", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/loop/"), "%d", &n)
		http.Redirect(w, r, fmt.Sprintf("/loop/%d", n+1), http.StatusFound)
	})
	mux.HandleFunc("/redirect-to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := os.ReadFile("testdata/pages/notfound.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write(raw)
	})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := os.ReadFile("testdata/pages/error500.html")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(raw)
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><head><title>Slow</title></head><body><p>start")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/report.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n")
	})
	mux.HandleFunc("/photo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	})
	mux.HandleFunc("/untyped-binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no type: sniffed
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		writeBigPage(w, bigPageBytes)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

const bigPageBytes = 20_000_000

// writeBigPage streams an HTML page of about n bytes: a header and
// navigation, then paragraphs with a link every tenth, first and last
// paragraphs marked.
func writeBigPage(w io.Writer, n int) {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	head := `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Server log archive</title><script>var big = true;</script></head><body><nav><a href="/">Home</a></nav><main><h1>Archive</h1><p>FIRST-PARAGRAPH-MARKER</p>`
	tail := `<p>LAST-PARAGRAPH-MARKER</p></main><footer>FOOTER-MARKER</footer></body></html>`
	bw.WriteString(head)
	written := len(head) + len(tail)
	for i := 0; ; i++ {
		p := fmt.Sprintf("<p>Entry %d: the quick brown fox jumps over the lazy dog while the request queue drains at a steady rate of many items per second.</p>\n", i)
		if i%10 == 0 {
			p = fmt.Sprintf("<p>Entry %d links to <a href=\"/entry/%d\">entry %d</a>.</p>\n", i, i, i)
		}
		if written+len(p) > n {
			break
		}
		bw.WriteString(p)
		written += len(p)
	}
	bw.WriteString(strings.Repeat(" ", n-written))
	bw.WriteString(tail)
}

func testFetcher() *Fetcher {
	return &Fetcher{Guard: netguard.Guard{AllowPrivate: true}, MaxBytes: MaxBodyBytes, MaxRedirects: MaxRedirects, Timeout: 10 * time.Second}
}

func fetch(t *testing.T, f *Fetcher, raw string) (*Fetched, error) {
	t.Helper()
	u, err := f.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	return f.Fetch(context.Background(), u)
}

// pageCase is one fixture and what extraction must make of it.
type pageCase struct {
	name        string
	path        string
	title       string
	charset     string
	contentType string
	contains    []string // phrases the main text must contain
	notContains []string // phrases it must not contain (chrome, script, ads)
	links       []string // links that must appear, in this order ({srv} is the server)
	noLinks     []string // links that must not appear
	linkCount   int      // exact number of links, when not 0
	redirects   int
	code        envelope.Code // an expected failure
	details     map[string]any
}

func TestExtractionFixtures(t *testing.T) {
	srv := pageServer(t)
	cases := []pageCase{
		{name: "news article with navigation, ads, cookie banner and footer", path: "/pages/news.html",
			title: "City council approves new tram line | The Daily Ledger", charset: "utf-8", contentType: "text/html",
			contains: []string{"# City council approves new tram line", "By Maria Okafor", "voted 31 to 12 on Tuesday night to build a tram line linking the harbour",
				"spring 2026", "## Opposition raises costs", "quarterly spending reports", "fourteen stops", "An artist's impression of the harbour stop."},
			notContains: []string{"We use cookies", "Accept all cookies", "Sport", "Search the Ledger", "discount mattresses", "Lose weight fast",
				"Share on", "Related stories", "Most read", "morning briefing", "All rights reserved", "dataLayer", "tracking pixel", "Skip to content", "font-family"},
			links:   []string{"{srv}/news/", "{srv}/sport/", "{srv}/topics/tram", "https://council.example.gov/reports/tram-2025.pdf", "{srv}/news/bus-fares-rise", "{srv}/about"},
			noLinks: []string{"{srv}/privacy", "https://ads.example.net/click?id=991", "https://ads.example.net/click?id=1234", "{srv}/pages/news.html#content"}},
		{name: "documentation page with a sidebar", path: "/pages/docs.html",
			title: "Configuring retries — Fluxq 2.4 documentation",
			contains: []string{"# Configuring retries", "exponential backoff", "retry_policy=Backoff(base=0.5, max_attempts=8),\n)", "Setting max_attempts=0 retries forever.",
				"## Parameters", "Name | Default | Meaning", "max_attempts | 5 | attempts before dead-lettering", "See Dead-letter queues for what happens"},
			notContains: []string{"Installation", "Quick start", "Search docs", "User guide", "Built with Sphinx", "Previous", "Docs »"},
			links:       []string{"{srv}/index.html", "{srv}/install.html", "{srv}/api/index.html", "{srv}/pages/dead-letters.html#dlq", "{srv}/pages/dead-letters.html"}},
		{name: "forum thread", path: "/pages/forum.html",
			title:       "Segfault when closing the audio device - Linux Audio Forum",
			contains:    []string{"segmentation fault every time I call snd_pcm_close", "#0 snd_pcm_close (pcm=0x0) at pcm.c:741", "kasia_w wrote:", "You are closing the handle twice", "That was it, thanks!", "by oldtimer"},
			notContains: []string{"Type your reply here", "Quick Reply", "Powered by phpBB", "Register", "FAQ", "kernel 6.12", "Page 1 of 1"},
			links:       []string{"{srv}/pages/faq.php", "{srv}/pages/viewtopic.php?t=8812", "https://alsa.example.org/api/pcm.html", "{srv}/pages/memberlist.php?mode=team"}},
		{name: "content inside noscript", path: "/pages/noscript.html",
			title:       "Pricing – Nimbus Notes",
			contains:    []string{"# Simple pricing for every team", "3 notebooks and 100 MB", "8 dollars per member per month", "Start a Team trial"},
			notContains: []string{"enable JavaScript", "__INITIAL_STATE__", "do-not-show"},
			links:       []string{"{srv}/signup?plan=team"}, linkCount: 1},
		{name: "windows-1252 declared in a meta element", path: "/pages/cp1252.html",
			title: "Café Crème – Menü", charset: "windows-1252",
			contains:    []string{"Notre carte d’hiver", "Le café crème coûte 3,50 € — servi avec une madeleine.", "“La meilleure crème brûlée du quartier”, selon nos clients naïfs."},
			notContains: []string{"Accueil", "\uFFFD"}},
		{name: "Shift_JIS declared in the Content-Type header", path: "/pages/sjis.html",
			title: "東京の天気予報", charset: "shift_jis",
			contains:    []string{"明日の東京は晴れ時々曇り、最高気温は１８度の見込みです。", "花粉の飛散は「多い」でしょう。"},
			notContains: []string{"地域を選ぶ", "株式会社", "\uFFFD"},
			links:       []string{"{srv}/", "{srv}/area/", "{srv}/pages/kafun.html"}},
		{name: "relative and protocol-relative links under a base href", path: "/pages/links.html",
			title: "Mirror index", contains: []string{"# Release mirror", "- app 1.2", "- Latest from the CDN"},
			links: []string{"https://mirror.example.org/pub/releases/v1.2/app.tar.gz", "https://mirror.example.org/pub/archive/", "https://mirror.example.org/status",
				"https://cdn.example.net/app/latest.tar.gz", "https://other.example.com/x?y=1&z=2", "https://mirror.example.org/pub/releases/?sort=date",
				"https://mirror.example.org/pub/releases/v1.3/app.tar.gz", "https://mirror.example.org/pub/releases/v1.4/"},
			noLinks: []string{"javascript:void(0)", "mailto:admin@example.org", "{srv}/pages/v1.2/app.tar.gz"}, linkCount: 8},
		{name: "blog post whose headline sits in the article's header", path: "/pages/blog.html",
			title:       "Why our builds got 3x faster",
			contains:    []string{"# Why our builds got 3x faster", "January 20, 2025", "41 minutes", "- Key the cache on the lock file.", "Filed under ci, performance."},
			notContains: []string{"eng blog", "Archive", "Share on LinkedIn", "© 2025 Example Corp", "Did you try remote caching"},
			links:       []string{"{srv}/", "{srv}/archive", "{srv}/rss.xml", "{srv}/tags/ci", "{srv}/tags/performance"}},
		{name: "encyclopedia article with infobox, table of contents and edit links", path: "/pages/wiki.html",
			title:       "Harbour tram - Wikipedia",
			contains:    []string{"# Harbour tram", "Status | Under construction", "is a planned light rail line", "## History", "first proposed in 1998"},
			notContains: []string{"Search Wikipedia", "Random article", "Jump to content", "last edited on", "Contents"},
			links:       []string{"{srv}/wiki/Main_Page", "{srv}/wiki/Special:Random", "https://council.example.gov/reports/tram-2025.pdf", "{srv}/wiki/Category:Tram_transport", "{srv}/wiki/Wikipedia:Privacy_policy"}},
		{name: "a page that tries to instruct the agent is only text", path: "/pages/injection.html",
			title: "Totally normal recipe", contains: []string{"IMPORTANT SYSTEM INSTRUCTION", "Bake for 40 minutes."}, linkCount: 0},
		{name: "JSON", path: "/pages/package.json", contentType: "application/json", charset: "utf-8",
			contains: []string{`"name":"fluxq"`, `"keywords":["queue","retry"]`}},
		{name: "plain text", path: "/pages/notes.txt", contentType: "text/plain",
			contains: []string{"Plain text release notes\n\n- Fixed: retries no longer double-count."}},
		{name: "a redirect chain of three hops", path: "/r/1", title: "Configuring retries — Fluxq 2.4 documentation", redirects: 3,
			contains: []string{"exponential backoff"}},
		{name: "a redirect loop stops at the limit", path: "/loop/0", code: envelope.NetworkError, details: map[string]any{"reason": "redirects"}},
		{name: "a redirect to file: is refused", path: "/redirect-to-file", code: envelope.InvalidInput, details: map[string]any{"reason": "scheme"}},
		{name: "404", path: "/missing", code: envelope.NetworkError, details: map[string]any{"status": 404, "title": "404 Not Found", "reason": "http-status"}},
		{name: "500", path: "/boom", code: envelope.NetworkError, details: map[string]any{"status": 500, "title": "Internal Server Error"}},
		{name: "PDF refused", path: "/report.pdf", code: envelope.InvalidInput, details: map[string]any{"contentType": "application/pdf", "reason": "binary-content-type"}},
		{name: "image refused", path: "/photo", code: envelope.InvalidInput, details: map[string]any{"contentType": "image/png"}},
		{name: "untyped binary sniffed and refused", path: "/untyped-binary", code: envelope.InvalidInput, details: map[string]any{"contentType": "image/png"}},
	}
	f := testFetcher()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expand := func(s string) string { return strings.ReplaceAll(s, "{srv}", srv.URL) }
			got, err := fetch(t, f, srv.URL+tc.path)
			if tc.code != "" {
				var e *envelope.Error
				if !errors.As(err, &e) || e.Code != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				for k, v := range tc.details {
					if fmt.Sprint(e.Details[k]) != fmt.Sprint(v) {
						t.Errorf("details.%s = %v, want %v (%v)", k, e.Details[k], v, e.Details)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.title != "" && got.Title != tc.title {
				t.Errorf("title %q, want %q", got.Title, tc.title)
			}
			if tc.charset != "" && got.Charset != tc.charset {
				t.Errorf("charset %q, want %q", got.Charset, tc.charset)
			}
			if tc.contentType != "" && got.ContentType != tc.contentType {
				t.Errorf("content type %q, want %q", got.ContentType, tc.contentType)
			}
			for _, s := range tc.contains {
				if !strings.Contains(got.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, got.Text)
				}
			}
			for _, s := range tc.notContains {
				if strings.Contains(got.Text, s) {
					t.Errorf("text holds chrome %q:\n%s", s, got.Text)
				}
			}
			urls := make([]string, len(got.Links))
			for i, l := range got.Links {
				urls[i] = l.URL
			}
			at := 0
			for _, want := range tc.links {
				want = expand(want)
				i := indexFrom(urls, want, at)
				if i < 0 {
					t.Errorf("link %s missing or out of order in %v", want, urls)
					continue
				}
				at = i + 1
			}
			for _, no := range tc.noLinks {
				if indexFrom(urls, expand(no), 0) >= 0 {
					t.Errorf("link %s should have been left out: %v", expand(no), urls)
				}
			}
			if tc.linkCount != 0 && len(urls) != tc.linkCount {
				t.Errorf("%d links, want %d: %v", len(urls), tc.linkCount, urls)
			}
			if len(got.Redirects) != tc.redirects {
				t.Errorf("redirects %v, want %d", got.Redirects, tc.redirects)
			}
		})
	}
}

func indexFrom(list []string, s string, from int) int {
	for i := from; i < len(list); i++ {
		if list[i] == s {
			return i
		}
	}
	return -1
}

func TestFetchTimeouts(t *testing.T) {
	srv := pageServer(t)
	f := testFetcher()
	f.Timeout = 700 * time.Millisecond
	for _, path := range []string{"/hang", "/slow-body"} {
		start := time.Now()
		_, err := fetch(t, f, srv.URL+path)
		if envelope.CodeOf(err) != envelope.Timeout {
			t.Errorf("%s: err = %v, want TIMEOUT", path, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", path, d)
		}
	}
}

// The 20 MB page is read whole (under the 20 MiB cap) and streamed into
// the parser; a lower cap cuts it and says so.
func TestFetchBigPage(t *testing.T) {
	srv := pageServer(t)
	f := testFetcher()
	got, err := fetch(t, f, srv.URL+"/big")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Server log archive" || got.BodyTruncated || got.Bytes != bigPageBytes {
		t.Fatalf("title %q truncated %v bytes %d", got.Title, got.BodyTruncated, got.Bytes)
	}
	for _, s := range []string{"FIRST-PARAGRAPH-MARKER", "LAST-PARAGRAPH-MARKER", "Entry 1: the quick brown fox"} {
		if !strings.Contains(got.Text, s) {
			t.Errorf("text lacks %s", s)
		}
	}
	for _, s := range []string{"FOOTER-MARKER", "var big"} {
		if strings.Contains(got.Text, s) {
			t.Errorf("text holds %s", s)
		}
	}
	if len(got.Links) < 10000 || got.Links[0].URL != srv.URL+"/" || got.Links[1].URL != srv.URL+"/entry/0" {
		t.Errorf("%d links, first %v", len(got.Links), got.Links[:2])
	}

	f.MaxBytes = 1 << 20
	got, err = fetch(t, f, srv.URL+"/big")
	if err != nil {
		t.Fatal(err)
	}
	if !got.BodyTruncated || got.Bytes != 1<<20 || !strings.Contains(got.Text, "FIRST-PARAGRAPH-MARKER") || strings.Contains(got.Text, "LAST-PARAGRAPH-MARKER") {
		t.Errorf("with a 1 MiB cap: truncated %v bytes %d", got.BodyTruncated, got.Bytes)
	}
}

// SSRF: with private networks refused, every spelling of a loopback or
// unspecified address is refused before any connection, a name that
// resolves to loopback is refused when it is dialed, and so is a redirect
// from an allowed host to a private one.
func TestFetchRefusesPrivateAddresses(t *testing.T) {
	var hits int
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		io.WriteString(w, "<title>internal admin</title>secret")
	}))
	defer private.Close()
	_, port, _ := net.SplitHostPort(private.Listener.Addr().String())

	f := testFetcher()
	f.Guard = netguard.Guard{}
	for _, raw := range []string{
		private.URL + "/",
		"http://localhost:" + port + "/",
		"http://2130706433:" + port + "/",
		"http://0x7f000001:" + port + "/",
		"http://0177.0.0.1:" + port + "/",
		"http://127.1:" + port + "/",
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://0.0.0.0:" + port + "/",
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
		"http://[fd00::1]/",
	} {
		_, err := fetch(t, f, raw)
		var e *envelope.Error
		if !errors.As(err, &e) || e.Code != envelope.NetworkError || e.Details["reason"] != "private-address" {
			t.Errorf("%s: err = %v, want NETWORK_ERROR private-address", raw, err)
			continue
		}
		if !strings.Contains(e.Message, "research.allowPrivateNetwork") {
			t.Errorf("%s: message does not say how to allow: %s", raw, e.Message)
		}
	}
	for _, raw := range []string{"file:///etc/passwd", "gopher://example.com/", "ftp://example.com/x", "data:text/html,hi", "//example.com/", "example.com"} {
		_, err := fetch(t, f, raw)
		if envelope.CodeOf(err) != envelope.InvalidInput {
			t.Errorf("%s: err = %v, want INVALID_INPUT", raw, err)
		}
	}

	// A name resolving to loopback through a custom resolver.
	dns := fakeDNS(t, netip.MustParseAddr("127.0.0.1"))
	f.Guard.Resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", dns)
	}}
	_, err := fetch(t, f, "http://docs.example.test:"+port+"/")
	var e *envelope.Error
	if !errors.As(err, &e) || e.Details["reason"] != "private-address" || !strings.Contains(e.Message, "docs.example.test resolves to 127.0.0.1") {
		t.Errorf("rebinding name: err = %v", err)
	}

	// A redirect from an allowed host to a private one: the second hop is
	// refused. The allowed host is 127.0.0.1 on an explicit allow list (a
	// second loopback address such as 127.0.0.2 cannot be bound everywhere);
	// the redirects go to the cloud metadata address and to a name the
	// test's resolver maps to 10.0.0.1, which the guard refuses when it
	// dials, before a packet leaves.
	internal := fakeDNS(t, netip.MustParseAddr("10.0.0.1"))
	var allowedHits int
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		allowedHits++
		switch r.URL.Path {
		case "/ok":
			io.WriteString(w, "<title>public</title>fine")
		case "/by-name":
			http.Redirect(w, r, "http://internal.example.test/admin", http.StatusFound)
		default:
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		}
	}))
	defer allowed.Close()
	f.Guard = netguard.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", internal)
	}}}
	if got, err := fetch(t, f, allowed.URL+"/ok"); err != nil || got.Title != "public" {
		t.Fatalf("allowed host: %v", err)
	}
	for path, refused := range map[string]string{"/go": "169.254.169.254", "/by-name": "internal.example.test resolves to 10.0.0.1"} {
		before := allowedHits
		_, err = fetch(t, f, allowed.URL+path)
		if !errors.As(err, &e) || e.Code != envelope.NetworkError || e.Details["reason"] != "private-address" || e.Details["redirects"] == nil || !strings.Contains(e.Message, refused) {
			t.Errorf("redirect %s to a private host: err = %v (%+v), want NETWORK_ERROR private-address naming %s", path, err, e, refused)
		}
		if allowedHits != before+1 {
			t.Errorf("redirect %s: the allowed host was asked %d times, want once (the first hop)", path, allowedHits-before)
		}
	}
	if hits != 0 {
		t.Errorf("the private server was reached %d times", hits)
	}
}

// fakeDNS answers every A query with addr.
func fakeDNS(t *testing.T, addr netip.Addr) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			if q.Type == dnsmessage.TypeA {
				b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: addr.As4()})
			}
			if out, err := b.Finish(); err == nil {
				pc.WriteTo(out, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

func TestBudgets(t *testing.T) {
	for _, tc := range []struct{ max, text, links int }{{20000, 20000, 5000}, {1000, 1000, 1000}, {3000, 3000, 1000}, {100000, 100000, 25000}} {
		text, links := Budgets(tc.max)
		if text != tc.text || links != tc.links {
			t.Errorf("Budgets(%d) = %d, %d", tc.max, text, links)
		}
	}
	links := []Link{{URL: "https://a.example/1", Text: "one"}, {URL: "https://a.example/2", Text: "two"}, {URL: "https://a.example/3", Text: "three"}}
	kept, omitted := boundLinks(links, 45)
	if len(kept) != 2 || omitted != 1 {
		t.Errorf("boundLinks kept %d omitted %d", len(kept), omitted)
	}
	text, cut := boundText("héllo wörld and more words here", 12)
	if !cut || text != "héllo wörld" && text != "héllo wörld " {
		t.Errorf("boundText = %q %v", text, cut)
	}
	if _, err := url.Parse("http://x"); err != nil {
		t.Fatal(err)
	}
}
