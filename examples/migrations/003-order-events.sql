-- Every new order is announced on the channel "orders" as its JSON, whichever instance wrote it:
-- each instance LISTENs, and hands it to the event streams of its user that it serves.
create function announce_order() returns trigger language plpgsql as $$
begin
  perform pg_notify('orders', json_build_object('id', new.id, 'userId', new.user_id, 'item', new.item, 'quantity', new.quantity)::text);
  return new;
end
$$;

create trigger orders_announced after insert on orders for each row execute function announce_order();
