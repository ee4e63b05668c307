package research

import (
	"io"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Link is one anchor of a fetched page, resolved to an absolute URL.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// Page is what extraction keeps of an HTML document.
type Page struct {
	Title string
	Text  string
	Links []Link
}

// maxLinkText clips one anchor's text; the URL is what matters.
const maxLinkText = 200

// chrome is removed before the main text is read: code, embedded objects,
// navigation, page furniture and controls.
const chrome = "script, style, template, svg, canvas, iframe, object, embed, noembed, video, audio, map, " +
	"nav, aside, button, select, input, textarea, label, dialog, menu, .headerlink, .anchorjs-link, .mw-editsection, " +
	"[hidden], [aria-hidden=true], [role=navigation], [role=banner], [role=contentinfo], " +
	"[role=complementary], [role=search], [role=dialog], [role=alertdialog], [role=menu], [role=menubar]"

// junkClass matches id and class tokens of page furniture: cookie and
// consent banners, ads, share bars, sidebars, menus, page headers and
// footers. noiseClass is the part whose links are noise too (ads, banners,
// share buttons); navigation links are kept, since they are how an agent
// finds the next page.
// The regexps compile on first use: package init runs on every aw call.
var (
	junkClass = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[\s_-])(?:cookies?|consent|gdpr|cmp|advert|advertisement|advertising|ads?|adslot|adunit|adsbygoogle|sponsor|sponsored|promo|newsletter|subscribe|share|sharing|social|sidebar|breadcrumbs?|skip|skiplink|popup|modal|overlay|navbar|menu|masthead|related|toolbar|banner|header|footer|copyright|pagination|signature)(?:$|[\s_-])`)
	})
	noiseClass = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[\s_-])(?:cookies?|consent|gdpr|cmp|advert|advertisement|advertising|ads?|adslot|adunit|adsbygoogle|sponsor|sponsored|promo|share|sharing|social)(?:$|[\s_-])`)
	})
)

// cookieText is what a cookie banner says when its class names do not.
var cookieText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bwe use cookies\b|\baccept (all )?cookies\b|\bcookie (policy|settings|preferences)\b|\bthis (web)?site uses cookies\b`)
})

// noJSText is the "enable JavaScript" notice a noscript element often holds.
var noJSText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(enable|turn on|activate) javascript\b|\bjavascript (is )?(required|disabled)\b`)
})

const mainSelector = "main, [role=main]"

// extractHTML parses an HTML document (already decoded to UTF-8) and keeps
// its title, its main text without chrome, and every link in document
// order resolved against base (or the document's <base href>).
func extractHTML(r io.Reader, base *url.URL) (*Page, error) {
	// Scripting off: <noscript> content is parsed as elements, which is
	// what a client that runs no script sees.
	root, err := html.ParseWithOptions(r, html.ParseOptionEnableScripting(false))
	if err != nil {
		return nil, err
	}
	doc := goquery.NewDocumentFromNode(root)
	if b, ok := doc.Find("base[href]").First().Attr("href"); ok {
		if u, err := base.Parse(strings.TrimSpace(b)); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			base = u
		}
	}
	p := &Page{Title: title(doc)}

	junk, noise := furniture(doc)
	p.Links = links(doc, base, noise)

	doc.Find(chrome).Remove()
	for _, n := range junk {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	// header and footer are page chrome unless they belong to an article
	// or section (an article's header holds its headline).
	doc.Find("header, footer").Each(func(_ int, s *goquery.Selection) {
		if s.ParentsFiltered("article, section, main, [role=main]").Length() == 0 {
			s.Remove()
		}
	})
	// A form is a control, unless a page wraps its whole content in one.
	doc.Find("form").Each(func(_ int, s *goquery.Selection) {
		if s.Find("main, article, [role=main]").Length() == 0 {
			s.Remove()
		}
	})
	doc.Find("noscript").Each(func(_ int, s *goquery.Selection) {
		if t := s.Text(); len(t) < 400 && noJSText().MatchString(t) {
			s.Remove()
		}
	})

	var w textWriter
	for _, n := range mainNodes(doc) {
		w.walk(n)
	}
	p.Text = w.String()
	return p, nil
}

func title(doc *goquery.Document) string {
	if t := collapse(doc.Find("title").First().Text()); t != "" {
		return t
	}
	for _, sel := range []string{`meta[property="og:title"]`, `meta[name="twitter:title"]`} {
		if c, ok := doc.Find(sel).First().Attr("content"); ok && strings.TrimSpace(c) != "" {
			return collapse(c)
		}
	}
	return collapse(doc.Find("h1").First().Text())
}

// furniture finds the cookie banners, ads and menus marked by id, class or
// wording, never an element that holds the main content. noise is the
// part whose links are left out too.
func furniture(doc *goquery.Document) (out []*html.Node, noise map[*html.Node]bool) {
	noise = map[*html.Node]bool{}
	doc.Find("body *").Each(func(_ int, s *goquery.Selection) {
		n := s.Get(0)
		switch n.DataAtom {
		case atom.Main, atom.Article, atom.Body, atom.Html, atom.Head, atom.Title, atom.Meta, atom.Link:
			return
		}
		for p := n.Parent; p != nil; p = p.Parent {
			if len(out) > 0 && p == out[len(out)-1] {
				return // inside furniture already found
			}
		}
		marks := strings.ToLower(attr(n, "id") + " " + attr(n, "class"))
		marked := strings.TrimSpace(marks) != ""
		junky := marked && junkClass().MatchString(marks)
		noisy := marked && noiseClass().MatchString(marks)
		if !junky && (n.DataAtom == atom.Div || n.DataAtom == atom.Section || n.DataAtom == atom.P) {
			// The regexp only runs on text that names cookies at all.
			if t, short := textUpTo(n, 600); short && containsFold(t, "cookie") && cookieText().MatchString(t) {
				junky, noisy = true, true
			}
		}
		if !junky {
			return
		}
		if s.Find("main, article, [role=main], h1").Length() > 0 {
			return
		}
		out = append(out, n)
		if noisy {
			noise[n] = true
		}
	})
	return out, noise
}

// links lists the anchors in document order, resolved against base, each
// URL once; script pseudo-URLs, anchors within this page and anchors in
// ads and cookie banners are left out.
func links(doc *goquery.Document, base *url.URL, junk map[*html.Node]bool) []Link {
	out := []Link{}
	seen := map[string]bool{}
	page := *base
	page.Fragment = ""
	doc.Find("a[href], area[href]").Each(func(_ int, s *goquery.Selection) {
		n := s.Get(0)
		for p := n; p != nil; p = p.Parent {
			if junk[p] {
				return
			}
		}
		href := strings.TrimSpace(attr(n, "href"))
		u, err := base.Parse(href)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return
		}
		frag := u.Fragment
		u.Fragment = ""
		if frag != "" && u.String() == page.String() {
			return // an anchor within this page
		}
		u.Fragment = frag
		abs := u.String()
		if seen[abs] {
			return
		}
		seen[abs] = true
		text := collapse(s.Text())
		if text == "" {
			text = collapse(attr(n, "title"))
		}
		if text == "" {
			text = collapse(s.Find("img[alt]").First().AttrOr("alt", ""))
		}
		out = append(out, Link{URL: abs, Text: clipRunes(text, maxLinkText)})
	})
	return out
}

// mainNodes picks the main content: <main> (or role=main) when it says
// something, else the only <article>, else the body.
func mainNodes(doc *goquery.Document) []*html.Node {
	if m := doc.Find(mainSelector).First(); m.Length() > 0 {
		if t, short := textUpTo(m.Get(0), 200); !short || strings.TrimSpace(t) != "" {
			return m.Nodes
		}
	}
	if a := doc.Find("article"); a.Length() == 1 {
		if _, short := textUpTo(a.Get(0), 200); !short {
			return a.Nodes
		}
	}
	if b := doc.Find("body"); b.Length() > 0 {
		return b.Nodes
	}
	return doc.Nodes
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// textUpTo returns n's text while it stays under limit bytes; short is
// false when there was more.
func textUpTo(n *html.Node, limit int) (text string, short bool) {
	var b strings.Builder
	var walk func(*html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return b.Len() <= limit
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	short = walk(n)
	return b.String(), short
}

// containsFold reports whether s contains the lower-case ASCII word sub,
// in any case, without allocating.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// collapse folds whitespace runs to one space and trims.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// textWriter renders nodes as plain text: whitespace folded as a browser
// would, blank lines between blocks, list items as "- ", headings as
// "# ", table cells separated by " | ", <pre> kept verbatim.
type textWriter struct {
	b     strings.Builder
	space bool // a space is owed before the next word
	nl    int  // newlines at the end of b (2 at most matter)
	pre   int
}

// String returns the text, trimmed (a substring: the text is not copied).
func (w *textWriter) String() string { return strings.TrimSpace(w.b.String()) }

func (w *textWriter) breakLine(n int) {
	if n == 0 || w.b.Len() == 0 {
		return
	}
	for w.nl < n {
		w.b.WriteByte('\n')
		w.nl++
	}
	w.space = false
}

func (w *textWriter) write(s string) {
	if s == "" {
		return
	}
	if w.space && w.nl == 0 && w.b.Len() > 0 {
		w.b.WriteByte(' ')
	}
	w.space = false
	w.b.WriteString(s)
	w.nl = 0
	if strings.HasSuffix(s, "\n") {
		w.nl = 1
	}
}

func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.write(s)
		return
	}
	if s == "" {
		return
	}
	lead := isSpace(s[0])
	trail := isSpace(s[len(s)-1])
	words := strings.Fields(s)
	if len(words) == 0 {
		w.space = w.space || lead
		return
	}
	if lead {
		w.space = true
	}
	w.write(strings.Join(words, " "))
	w.space = trail
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// breakAround is the break that sets an element off: 2 a blank line, 1 a
// line break. Switches, not maps: nothing is built at package init.
func breakAround(a atom.Atom) int {
	switch a {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Blockquote, atom.Pre, atom.Figure,
		atom.Article, atom.Section, atom.Header, atom.Footer, atom.Main, atom.Hr, atom.Details,
		atom.Address, atom.Fieldset:
		return 2
	case atom.Div, atom.Li, atom.Tr, atom.Dt, atom.Dd, atom.Caption,
		atom.Figcaption, atom.Summary, atom.Noscript, atom.Center, atom.Form, atom.Tbody, atom.Thead:
		return 1
	}
	return 0
}

// heading is the Markdown prefix of a heading element, "" for others.
func heading(a atom.Atom) string {
	switch a {
	case atom.H1:
		return "# "
	case atom.H2:
		return "## "
	case atom.H3:
		return "### "
	case atom.H4:
		return "#### "
	case atom.H5:
		return "##### "
	case atom.H6:
		return "###### "
	}
	return ""
}

func (w *textWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	case html.DocumentNode:
	default:
		return
	}
	a := n.DataAtom
	switch a {
	case atom.Head, atom.Script, atom.Style, atom.Template:
		return
	case atom.Br:
		w.b.WriteByte('\n')
		w.nl++
		w.space = false
		return
	case atom.Img:
		return
	}
	brk := breakAround(a)
	w.breakLine(brk)
	switch {
	case heading(a) != "":
		w.write(heading(a))
	case a == atom.Li:
		w.write("- ")
	case a == atom.Td || a == atom.Th:
		if n.PrevSibling != nil && prevElement(n) != nil {
			w.write(" |")
			w.space = true
		}
	case a == atom.Pre:
		w.pre++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if a == atom.Pre {
		w.pre--
	}
	w.breakLine(brk)
}

func prevElement(n *html.Node) *html.Node {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode {
			return p
		}
	}
	return nil
}
