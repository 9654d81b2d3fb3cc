package relay

import (
	"net/http"
	"net/url"
)

// maxRedirects bounds the same-origin redirects one relay.fetch follows.
const maxRedirects = 5

// origin is a URL's scheme, host and port (the port always explicit), the
// unit the relay never leaves within one relay.fetch: headers such as
// Authorization and the request body only ever go to the origin the
// extension named.
func origin(u *url.URL) string { return u.Scheme + "://" + hostPort(u) }

// hop is the request a redirect asks for.
type hop struct {
	url    *url.URL
	method string
	body   bool // the body is sent again (307, 308)
}

// redirect returns where resp sends the client, or false when it is not a
// redirect the relay could follow (no Location, or a status such as 300 or
// 304). The caller still decides on the origin and the URL rules.
func redirect(resp *http.Response) (hop, bool) {
	h := hop{method: resp.Request.Method, body: true}
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther:
		// As browsers and Go's client do: the body is dropped and a POST
		// becomes a GET.
		h.body = false
		if h.method != http.MethodGet && h.method != http.MethodHead {
			h.method = http.MethodGet
		}
	case http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return hop{}, false
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return hop{}, false
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return hop{}, false
	}
	u.Fragment, u.RawFragment = "", ""
	h.url = u
	return h, true
}
