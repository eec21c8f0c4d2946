vcl 4.1;

# The self-hosted edge in front of the Trust Profile Service (Varnish 7.1 with vmod xkey from
# varnish-modules). It follows the headers the origin sends, so a public page is cached until
# the origin purges it by tag:
#
#   Surrogate-Key: project-<id> domain-<host> …          the tags; without it nothing is cached
#   CDN-Cache-Control: public, max-age=86400             how long this edge may keep it
#   Cache-Control: public, s-maxage=300                  what browsers and other caches see
#
# The origin purges with `PURGE /` and the header `xkey-purge: <tags separated by spaces>`
# (CDN_PURGE=xkey, CDN_PURGE_URL=http://<this edge>/). Start it with, for example:
#   varnishd -a :80 -f /etc/varnish/default.vcl -s malloc,256m
# and point the backend below at the service (PORT, default 8000).

import std;
import xkey;

# The origin. No health probe: a probe would be traffic that keeps an on-demand origin awake.
backend default {
    .host = "127.0.0.1";
    .port = "8000";
    # A cold origin may take a few seconds to answer its first request.
    .first_byte_timeout = 60s;
}

# Who may purge: the origin itself (same machine by default). Add the addresses of the service's
# instances when they run elsewhere.
acl purgers {
    "localhost";
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        # A purge empties the cache of every page the tags name; only the origin may ask.
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        # Purging is by tag only: a PURGE without tags is a mistake, not "purge this URL".
        if (!req.http.xkey-purge) {
            return (synth(400, "Missing xkey-purge header"));
        }
        # A hard purge: the objects are gone at once. A soft purge would keep them for grace
        # and could hand an older version to a reader who asked after the purge was answered.
        set req.http.xkey-purged = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged"));
    }
    # Nothing else is decided here: Varnish's built-in vcl_recv follows, which passes requests
    # with Cookie or Authorization (signed-in API calls, sign-in forms) and every method other
    # than GET and HEAD straight to the origin, uncached. Accept is left as it is: the origin
    # chooses JSON, HTML or Markdown by it and says `Vary: Accept`, so each distinct Accept value
    # is its own cached variant (all of them purged together by tag).
}

sub vcl_synth {
    if (req.method == "PURGE" && resp.status == 200) {
        # The count of purged objects, as a header for programs and as the body for people.
        set resp.http.xkey-purged = req.http.xkey-purged;
        set resp.http.Content-Type = "text/plain; charset=utf-8";
        set resp.body = req.http.xkey-purged + " objects purged" + {"
"};
        return (deliver);
    }
}

sub vcl_backend_response {
    # Never serve an expired or purged object while fetching its replacement, and keep nothing
    # past its TTL for revalidation: a reader after a purge always gets the origin's new bytes.
    set beresp.grace = 0s;
    set beresp.keep = 0s;

    # Only responses the origin tagged are cached: the tags are how they are purged, so an
    # untagged response could only go stale. Uncacheable with a short TTL makes it
    # hit-for-miss: requests for it go to the origin without queueing behind each other, and a
    # later tagged response for the same URL is cached normally.
    if (!beresp.http.Surrogate-Key) {
        call uncacheable;
    }
    # A response that sets a cookie belongs to one visitor; server errors are not kept for a
    # day; Vary: * can never be matched.
    if (beresp.http.Set-Cookie || beresp.status >= 500 || beresp.http.Vary == "*") {
        call uncacheable;
    }

    # CDN-Cache-Control (RFC 9213) is addressed to CDNs like this one and, when present,
    # replaces Cache-Control here; Cache-Control keeps governing browsers downstream. (The
    # origin also sends Deno-CDN-Cache-Control, which only Deno Deploy's own CDN reads.)
    if (beresp.http.CDN-Cache-Control) {
        if (beresp.http.CDN-Cache-Control ~ "(^|[,\s])(no-store|private|no-cache)") {
            call uncacheable;
        }
        if (beresp.http.CDN-Cache-Control ~ "(^|[,\s])max-age=\d+") {
            set beresp.ttl = std.duration(
                regsub(beresp.http.CDN-Cache-Control, "^.*?(^|[,\s])max-age=(\d+).*$", "\2") + "s",
                0s);
        } else {
            # No lifetime for this edge (e.g. only `public`): not guessed, not cached.
            call uncacheable;
        }
    } else if (beresp.http.Cache-Control ~ "(^|[,\s])(no-store|private|no-cache)") {
        call uncacheable;
    } else if (beresp.http.Cache-Control ~ "(^|[,\s])immutable" &&
               beresp.http.Cache-Control ~ "(^|[,\s])max-age=\d+") {
        # A versioned URL never changes: keep it as long as Cache-Control allows.
        set beresp.ttl = std.duration(
            regsub(beresp.http.Cache-Control, "^.*?(^|[,\s])max-age=(\d+).*$", "\2") + "s", 0s);
    }
    # Otherwise Varnish's TTL from Cache-Control (s-maxage, then max-age) stands.

    # xkey indexes the object under each tag of its xkey header; the origin names them in
    # Surrogate-Key (spaces or commas both separate tags for xkey).
    set beresp.http.xkey = beresp.http.Surrogate-Key;
    return (deliver);
}

sub uncacheable {
    set beresp.uncacheable = true;
    set beresp.ttl = 10s;
    return (deliver);
}

sub vcl_deliver {
    # For measurement: whether this response came from the cache (a pass is a MISS).
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # The tags are cache-internal: they were used when the object was stored, a browser has no
    # use for them, and they name internal organization and project ids. Deno-Cache-Tag carries
    # the same tags for Deno Deploy's CDN, which this edge stands in for, so it goes too.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
    unset resp.http.Deno-Cache-Tag;
}
