-- Conduit's tables live in a schema of their own, so that the demo's (examples/migrations/, which
-- has a users table too) and these can share one database.
create schema conduit;

-- An email is taken whatever its case (the index on lower(email) is also what a sign-in looks up);
-- a username is taken only as it is spelled. `password` holds "salt:scrypt hash", both base64.
create table conduit.users (
  id serial primary key,
  email text not null,
  username text not null,
  bio text not null default '',
  image text not null default '',
  password text not null
);
create unique index users_email_unique on conduit.users (lower(email));
create unique index users_username_unique on conduit.users (username);

-- The opaque tokens that registration and sign-in hand out.
create table conduit.tokens (
  token text primary key,
  user_id integer not null references conduit.users (id) on delete cascade
);

-- Who follows whom: the key answers both "does the viewer follow this author" and the feed's
-- "which authors does the viewer follow".
create table conduit.follows (
  follower_id integer not null references conduit.users (id) on delete cascade,
  followed_id integer not null references conduit.users (id) on delete cascade,
  primary key (follower_id, followed_id)
);

-- The tags are a text[] column, kept sorted and without repeats, rather than a table of their own:
-- an article always comes with all of its tags (a list reads no join and no aggregate for them),
-- a tag filter is `tag_list @> array[tag]`, which the GIN index answers, and a tag that no article
-- has any more is gone with nothing to clean up. The id counts up with each article, so newest
-- first is `order by id desc`, and each list's index ends with it.
create table conduit.articles (
  id serial primary key,
  slug text not null,
  title text not null,
  description text not null,
  body text not null,
  tag_list text[] not null default '{}',
  author_id integer not null references conduit.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index articles_slug_unique on conduit.articles (slug);
-- ?author= and the feed (the articles of the authors a user follows), newest first.
create index articles_by_author on conduit.articles (author_id, id desc);
-- ?tag=
create index articles_by_tag on conduit.articles using gin (tag_list);

-- The key counts an article's favorites and says whether the viewer is one of them; the second
-- index lists what a user favorited (?favorited=).
create table conduit.favorites (
  article_id integer not null references conduit.articles (id) on delete cascade,
  user_id integer not null references conduit.users (id) on delete cascade,
  primary key (article_id, user_id)
);
create index favorites_by_user on conduit.favorites (user_id, article_id);

-- An article's comments go with it.
create table conduit.comments (
  id serial primary key,
  article_id integer not null references conduit.articles (id) on delete cascade,
  author_id integer not null references conduit.users (id) on delete cascade,
  body text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index comments_by_article on conduit.comments (article_id, id);
