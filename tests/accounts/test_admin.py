"""Nobody escalates through a form: in the real admin, a supervisor (staff) cannot change anyone's
roles, flags, permissions or password, nor add users, nor edit a superuser; a superuser's changes
and the studio_user command's go through accounts.services and are recorded (never a password)."""
import datetime
import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.forms import MultiWidget, SplitDateTimeWidget
from django.test import Client

from accounts.models import AccessChange, Token
from accounts.tokens import token_issue

pytestmark = pytest.mark.django_db
User = get_user_model()


def admin_as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def change_url(user) -> str:
    return f"/admin/auth/user/{user.pk}/change/"


def form_data(client, url) -> dict:
    """What the admin's change form would post back unchanged."""
    response = client.get(url)
    assert response.status_code == 200
    data = {"_save": "Save"}
    for bf in response.context["adminform"].form:
        if bf.field.disabled:
            continue
        value = bf.value()
        if isinstance(bf.field.widget, SplitDateTimeWidget):
            when = value if isinstance(value, datetime.datetime) else None
            data[f"{bf.html_name}_0"] = when.date().isoformat() if when else ""
            data[f"{bf.html_name}_1"] = when.time().strftime("%H:%M:%S") if when else ""
        elif isinstance(bf.field.widget, MultiWidget):  # a row of inputs, name_0, name_1, ...
            parts = value if isinstance(value, (list, tuple)) else bf.field.widget.decompress(value)
            for i, part in enumerate(parts):
                data[f"{bf.html_name}_{i}"] = "" if part is None else str(part)
        elif isinstance(value, (list, tuple)):
            data[bf.html_name] = [str(getattr(v, "pk", v)) for v in value]
        elif isinstance(value, bool):
            if value:
                data[bf.html_name] = "on"
        else:
            data[bf.html_name] = "" if value is None else value
    return data


def refreshed(user):
    user = User.objects.get(pk=user.pk)
    return user, sorted(user.groups.values_list("name", flat=True)), set(user.user_permissions.all())


@pytest.fixture
def root(db):
    return User.objects.create_superuser("root", password="pw-root")


def test_a_supervisors_own_form_with_is_superuser_on_changes_no_role(supervisor):
    client = admin_as(supervisor)
    data = form_data(client, change_url(supervisor))
    data.update(first_name="Sue", is_superuser="on", is_staff="on", is_active="on",
                groups=[str(g.pk) for g in Group.objects.filter(name__in=["dealer", "supervisor"])] + [str(Group.objects.create(name="admins").pk)],
                user_permissions=[str(p.pk) for p in Permission.objects.filter(codename__in=["change_group", "add_user"])])
    response = client.post(change_url(supervisor), data)
    assert response.status_code == 302, response.content
    user, groups, permissions = refreshed(supervisor)
    assert user.first_name == "Sue"  # what a supervisor may edit is still saved
    assert not user.is_superuser and groups == ["supervisor"] and permissions == set()
    assert not AccessChange.objects.filter(source="admin").exists()


def test_a_supervisor_cannot_give_a_player_a_role_or_change_their_name(supervisor, alice):
    client = admin_as(supervisor)
    data = form_data(client, change_url(alice))
    data.update(username="alice2", is_staff="on", groups=[str(Group.objects.get(name="supervisor").pk)])
    assert client.post(change_url(alice), data).status_code == 302
    user, groups, _ = refreshed(alice)
    assert (user.username, user.is_staff, groups) == ("alice", False, ["player"])


def test_a_supervisor_is_refused_the_password_view_and_the_password_stays(supervisor, alice):
    client = admin_as(supervisor)
    url = f"/admin/auth/user/{alice.pk}/password/"
    assert client.get(url).status_code == 403
    response = client.post(url, {"password1": "Taken-over-1", "password2": "Taken-over-1", "usable_password": "true"})
    assert response.status_code == 403
    assert User.objects.get(pk=alice.pk).check_password("pw-alice")


def test_a_supervisor_cannot_add_users_nor_edit_a_superuser(supervisor, root):
    client = admin_as(supervisor)
    assert client.get("/admin/auth/user/add/").status_code == 403
    assert client.post("/admin/auth/user/add/", {"username": "mallory", "password1": "Pw-mallory-1",
                                                 "password2": "Pw-mallory-1", "usable_password": "true"}).status_code == 403
    assert not User.objects.filter(username="mallory").exists()
    data = {"username": "root", "first_name": "x", "is_active": "", "_save": "Save"}
    assert client.post(change_url(root), data).status_code == 403
    assert User.objects.get(pk=root.pk).is_active


def test_a_supervisor_cannot_change_a_groups_permissions(supervisor):
    client = admin_as(supervisor)
    group = Group.objects.get(name="supervisor")
    before = set(group.permissions.all())
    client.post(f"/admin/auth/group/{group.pk}/change/", {"name": "supervisor", "permissions": [str(p.pk) for p in Permission.objects.all()]})
    assert set(group.permissions.all()) == before


def test_a_superusers_role_change_in_the_admin_is_recorded(root, dealer):
    client = admin_as(root)
    data = form_data(client, change_url(dealer))
    data.update(is_staff="on", groups=[str(Group.objects.get(name="dealer").pk), str(Group.objects.get_or_create(name="supervisor")[0].pk)])
    assert client.post(change_url(dealer), data).status_code == 302
    user, groups, _ = refreshed(dealer)
    assert user.is_staff and groups == ["dealer", "supervisor"]
    records = {r.field: r for r in AccessChange.objects.filter(user=dealer, source="admin")}
    assert set(records) == {"is_staff", "groups"}
    assert (records["is_staff"].old, records["is_staff"].new) == ("False", "True")
    assert (records["groups"].old, records["groups"].new) == ("dealer", "dealer,supervisor")
    assert all(r.actor == root and r.actor_name == "root" for r in records.values())


def test_a_superusers_password_change_is_recorded_without_the_password_and_revokes_tokens(root, alice):
    key = token_issue(user=alice).key
    client = admin_as(root)
    response = client.post(f"/admin/auth/user/{alice.pk}/password/",
                           {"password1": "New-pass-4-alice", "password2": "New-pass-4-alice", "usable_password": "true"})
    assert response.status_code == 302
    assert User.objects.get(pk=alice.pk).check_password("New-pass-4-alice")
    record = AccessChange.objects.get(user=alice, field="password", source="admin")
    assert (record.actor, record.new) == (root, "set")
    assert not AccessChange.objects.filter(new__contains="New-pass").exists() and not Token.objects.filter(key=key).exists()


def test_a_superuser_adding_a_user_is_recorded(root):
    client = admin_as(root)
    response = client.post("/admin/auth/user/add/", {"username": "newbie", "password1": "Pw-newbie-12",
                                                     "password2": "Pw-newbie-12", "usable_password": "true", "_save": "Save"})
    assert response.status_code == 302, response.content
    assert sorted(AccessChange.objects.filter(username="newbie").values_list("field", "new")) == [("created", "newbie"), ("password", "set")]


def test_the_studio_user_commands_changes_are_recorded():
    call_command("studio_user", "nia", "--role", "dealer", "--password", "Pw-nia-12345", stdout=io.StringIO())
    call_command("studio_user", "nia", "--role", "supervisor", "--password", "Pw-nia-67890", stdout=io.StringIO())
    rows = list(AccessChange.objects.filter(username="nia").order_by("id").values_list("field", "old", "new", "source", "actor_name"))
    fields = [(f, o, n) for f, o, n, _, _ in rows]
    assert fields == [("created", "", "nia"), ("password", "", "set"), ("groups", "", "dealer"),
                      ("password", "", "set"), ("is_staff", "False", "True"), ("groups", "dealer", "supervisor")]
    assert {(s, a) for _, _, _, s, a in rows} == {("command", "studio_user command")}
    assert not AccessChange.objects.filter(new__contains="Pw-nia").exists()


def test_the_record_cannot_be_changed_or_deleted_in_the_admin(root, dealer):
    call_command("studio_user", "zed", "--role", "player", "--password", "Pw-zed-12345", stdout=io.StringIO())
    record = AccessChange.objects.filter(username="zed").first()
    client = admin_as(root)
    assert client.get(f"/admin/accounts/accesschange/{record.pk}/change/").status_code == 200  # to read
    client.post(f"/admin/accounts/accesschange/{record.pk}/change/", {"new": "forged", "field": "password"})
    assert client.post(f"/admin/accounts/accesschange/{record.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AccessChange.objects.get(pk=record.pk).new == record.new
