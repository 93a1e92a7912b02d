-- Users and their orders. `version` counts a user's changes: it is the user's ETag, and a change
-- applies only to the version its precondition named.
create table users (
  id serial primary key,
  name text not null,
  email text not null,
  version integer not null default 1
);

create table orders (
  id serial primary key,
  user_id integer not null references users (id) on delete cascade,
  item text not null,
  quantity integer not null
);

-- One index per order a list may be sorted in, each ending with the key: a page is one range scan,
-- however many orders come before it.
create index orders_by_user on orders (user_id, id);
create index orders_by_user_item on orders (user_id, item, id);
create index orders_by_user_quantity on orders (user_id, quantity, id);
-- A list of one item's orders, sorted by quantity.
create index orders_by_user_item_quantity on orders (user_id, item, quantity, id);
