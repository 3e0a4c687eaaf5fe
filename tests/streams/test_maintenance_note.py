"""`beliefstream decay` while another process owns the vector index: a whole sentence saying what
happened and why recall is still right."""

from launch.runtime import open_maintenance
from streams.settings import Settings


async def test_the_note_about_a_locked_vector_index_is_complete(tmp_path):
    from sinks.vectors import make_vector_index

    settings = Settings(data_dir=tmp_path)
    owner = make_vector_index(settings)  # as a running `dev` holds it
    await owner.setup()
    try:
        async with open_maintenance(settings) as (_store, projector, note):
            assert projector is None
    finally:
        await owner.close()
    assert note.startswith("vector index not opened: ")
    assert note.endswith("the running process that owns the index projects the changes.")
    assert "The SQL store, which recall reads, is up to date" in note
